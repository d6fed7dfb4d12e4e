public class OccupiedPlayer extends FaultyPlayer {
    protected int[] fault(Card card, long millisRemaining) { return new int[] {0, 0}; }  // taken at move 1
}
