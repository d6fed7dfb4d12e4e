import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;

// At the third move of its faulty games, prints a line of junk on the process's own
// stdout (not System.out, which the shim sends to stderr), then answers a legal cell.
public class JunkPlayer extends FaultyPlayer {
    protected int[] fault(Card card, long millisRemaining) {
        PrintStream raw = new PrintStream(new FileOutputStream(FileDescriptor.out), true);
        raw.println("junk");
        int cell = 0;
        while (used[cell]) cell++;
        used[cell] = true;
        return new int[] {cell / 5, cell % 5};
    }
}
