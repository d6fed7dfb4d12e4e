from pokersquares.javarandom import JavaRandom, java_shuffle


def test_next_int_bound_13(java_vectors):
    r = JavaRandom(7)
    assert [r.next_int(13) for _ in range(20)] == java_vectors["next_int_bound_13_seed_7"]
    assert r.next_double() == java_vectors["next_double_seed_7_after"]


def test_next_long(java_vectors):
    assert JavaRandom(99).next_long() == java_vectors["next_long_seed_99"]


def test_power_of_two_bound_uses_high_bits():
    a, b = JavaRandom(5), JavaRandom(5)
    assert a.next_int(256) == (256 * b.next(31)) >> 31


def test_shuffle_is_a_permutation_and_reproducible():
    xs, ys = list(range(52)), list(range(52))
    java_shuffle(xs, JavaRandom(3))
    java_shuffle(ys, JavaRandom(3))
    assert xs == ys and sorted(xs) == list(range(52)) and xs != list(range(52))
