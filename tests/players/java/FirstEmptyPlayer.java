// Places each card in the first empty cell in reading order.
public class FirstEmptyPlayer implements PokerSquaresPlayer {
    protected final boolean[] used = new boolean[25];
    protected int move;
    protected int[] points;
    public void setPointSystem(PokerSquaresPointSystem system, long millis) { points = system.getScoreTable(); }
    public void init() { java.util.Arrays.fill(used, false); move = 0; }
    public int[] getPlay(Card card, long millisRemaining) {
        move++;
        System.out.println("a chatty player: " + card);  // must not disturb the protocol
        int cell = 0;
        while (used[cell]) cell++;
        used[cell] = true;
        return new int[] {cell / 5, cell % 5};
    }
    public String getName() { return "FirstEmpty"; }
}
