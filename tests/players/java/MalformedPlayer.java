public class MalformedPlayer extends FaultyPlayer {
    protected int[] fault(Card card, long millisRemaining) { return new int[] {1}; }
}
