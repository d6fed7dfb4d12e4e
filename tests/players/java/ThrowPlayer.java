public class ThrowPlayer extends FaultyPlayer {
    protected int[] fault(Card card, long millisRemaining) { throw new IllegalStateException("boom"); }
}
