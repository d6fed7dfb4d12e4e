// A stand-in for the contest framework's point system: ten points indexed by hand id.
public class PokerSquaresPointSystem {
    private final int[] scoreTable;
    public PokerSquaresPointSystem(int[] scoreTable) { this.scoreTable = scoreTable.clone(); }
    public int[] getScoreTable() { return scoreTable.clone(); }
}
