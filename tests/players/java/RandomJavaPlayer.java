import java.util.ArrayList;
import java.util.Random;

// Places each card in a uniformly random empty cell.
public class RandomJavaPlayer implements PokerSquaresPlayer {
    private final Random random = new Random(7);
    private final ArrayList<Integer> empty = new ArrayList<>();
    public void setPointSystem(PokerSquaresPointSystem system, long millis) { }
    public void init() { empty.clear(); for (int i = 0; i < 25; i++) empty.add(i); }
    public int[] getPlay(Card card, long millisRemaining) {
        int cell = empty.remove(random.nextInt(empty.size()));
        return new int[] {cell / 5, cell % 5};
    }
    public String getName() { return "RandomJava"; }
}
