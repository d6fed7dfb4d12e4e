public class NotAPlayer {
    public String getName() { return "not a player"; }
}
