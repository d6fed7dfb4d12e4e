public class ExitPlayer extends FaultyPlayer {
    protected int[] fault(Card card, long millisRemaining) { System.exit(3); return null; }
}
