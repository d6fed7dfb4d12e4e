// A stand-in for the contest framework's player interface (same signatures).
public interface PokerSquaresPlayer {
    void setPointSystem(PokerSquaresPointSystem system, long millis);
    void init();
    int[] getPlay(Card card, long millisRemaining);
    String getName();
}
