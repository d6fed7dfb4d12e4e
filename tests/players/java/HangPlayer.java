public class HangPlayer extends FaultyPlayer {
    protected int[] fault(Card card, long millisRemaining) {
        long x = 0;
        while (true) { x++; }  // busy: the JVM must still die when its parent does
    }
}
