// First-empty play that misbehaves at the third move of games whose first card has an odd
// id (so which games fail depends on the deal only, not on workers or order).
public abstract class FaultyPlayer extends FirstEmptyPlayer {
    private boolean faulty;
    public int[] getPlay(Card card, long millisRemaining) {
        if (move == 0) faulty = card.getCardId() % 2 == 1;
        if (faulty && move == 2) { move++; return fault(card, millisRemaining); }
        return super.getPlay(card, millisRemaining);
    }
    protected abstract int[] fault(Card card, long millisRemaining);
}
