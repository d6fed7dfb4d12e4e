// A player that is a nested class: its binary name is NestedPlayers$First.
public class NestedPlayers {
    public static class First extends FirstEmptyPlayer {}
}
