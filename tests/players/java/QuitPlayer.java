// A constructor that ends the JVM quietly (exit code 0, nothing printed).
public class QuitPlayer extends FirstEmptyPlayer {
    public QuitPlayer() { System.exit(0); }
}
