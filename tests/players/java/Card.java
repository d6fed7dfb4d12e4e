// A stand-in for the contest framework's Card (same name and the members the shim uses;
// ids are suit * 13 + rank, RULES.md). The tests compile against it; nothing of the real
// framework ships with pokersquares.
public class Card {
    public static final int NUM_RANKS = 13, NUM_SUITS = 4, NUM_CARDS = 52;
    public static final String[] rankNames = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"};
    public static final String[] suitNames = {"C", "D", "H", "S"};
    private static final Card[] allCards = new Card[NUM_CARDS];
    static {
        for (int suit = 0; suit < NUM_SUITS; suit++)
            for (int rank = 0; rank < NUM_RANKS; rank++)
                allCards[suit * NUM_RANKS + rank] = new Card(rank, suit);
    }
    private final int rank, suit;

    public Card(int rank, int suit) { this.rank = rank; this.suit = suit; }
    public int getRank() { return rank; }
    public int getSuit() { return suit; }
    public int getCardId() { return suit * NUM_RANKS + rank; }
    public static Card getCard(int id) { return allCards[id]; }
    public static Card[] getAllCards() { return allCards.clone(); }
    public String toString() { return rankNames[rank] + suitNames[suit]; }
}
