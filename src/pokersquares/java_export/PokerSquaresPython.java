// A pokersquares player inside the 2016 contest's Java framework (written by
// `pokersquares export-java`, which also writes a class named after the player that
// extends this one; see src/pokersquares/java_export/__init__.py).
//
// It implements the framework's PokerSquaresPlayer (compiled against the user's copy of
// the framework: PokerSquaresPlayer, PokerSquaresPointSystem, Card) and plays by asking a
// Python process, `python -m pokersquares stdio-player --player SPEC`, over the same line
// protocol as the harness's Java shim, the other way round:
//
//   (start)                  <- "ready NAME" (the player built, its kernels compiled), or "error MESSAGE"
//   "system P0 .. P9 MILLIS" <- "ok"          setPointSystem: it learns within MILLIS
//   "init"                   <- "ok"          before each game
//   "play CARD_ID MILLIS"    <- "play R C"    getPlay: it answers within MILLIS, the game's time left
//   a call that failed       <- "raised MESSAGE" (thrown here as an IllegalStateException)
//
// The Python process starts in the constructor (outside the framework's clocks) and its
// error output goes to this JVM's; it ends when this JVM does (its stdin closes). A
// module:Class player's class also gives the folder its module was imported from, put
// ahead of the PYTHONPATH the tournament runs with.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

public class PokerSquaresPython implements PokerSquaresPlayer {
    private final Process process;
    private final BufferedReader fromPython;
    private final Writer toPython;
    private final String name;

    /** Starts {@code command} (a pokersquares stdio-player) and waits until its player is ready. */
    public PokerSquaresPython(String... command) {
        this(new String[0], command);
    }

    /**
     * Starts {@code command} with the folders {@code pythonPath} ahead of any PYTHONPATH
     * already set (where a module:Class player's module was imported from when exported).
     */
    public PokerSquaresPython(String[] pythonPath, String[] command) {
        ProcessBuilder builder = new ProcessBuilder(command);
        if (pythonPath.length > 0) {
            String path = String.join(java.io.File.pathSeparator, pythonPath);
            String set = builder.environment().get("PYTHONPATH");
            builder.environment().put("PYTHONPATH", set == null || set.isEmpty() ? path
                                      : path + java.io.File.pathSeparator + set);
        }
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("pokersquares: cannot start " + command[0] + ": " + e.getMessage(), e);
        }
        fromPython = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        toPython = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop));
        String line = readLine();
        if (!line.startsWith("ready ")) {
            process.destroy();
            throw new IllegalStateException("pokersquares: " + (line.startsWith("error ") ? line.substring(6) : line));
        }
        name = line.substring(6);
    }

    /** At the JVM's end: the Python process's input ends (it exits once idle), else it is stopped. */
    private void stop() {
        try {
            toPython.close();
            if (!process.waitFor(2, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroy();
            }
        } catch (IOException | InterruptedException e) {
            process.destroy();
        }
    }

    private String readLine() {
        try {
            String line = fromPython.readLine();
            if (line != null) {
                return line;
            }
            int code = process.waitFor();
            throw new IllegalStateException("pokersquares: the Python player's process exited with code " + code);
        } catch (IOException e) {
            throw new UncheckedIOException("pokersquares: the Python player's process: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("pokersquares: interrupted waiting for the Python player", e);
        }
    }

    private synchronized String call(String command, String expected) {
        try {
            toPython.write(command + "\n");
            toPython.flush();
        } catch (IOException e) {
            throw new IllegalStateException("pokersquares: the Python player's process is gone (" + e.getMessage() + ")", e);
        }
        String line = readLine();
        if (line.startsWith("raised ")) {
            throw new IllegalStateException("pokersquares: " + line.substring(7));
        }
        if (!line.startsWith(expected)) {
            throw new IllegalStateException("pokersquares: unexpected answer '" + line + "' to '" + command + "'");
        }
        return line;
    }

    @Override
    public void setPointSystem(PokerSquaresPointSystem system, long millis) {
        StringBuilder command = new StringBuilder("system");
        for (int points : system.getScoreTable()) {
            command.append(' ').append(points);
        }
        call(command.append(' ').append(millis).toString(), "ok");
    }

    @Override
    public void init() {
        call("init", "ok");
    }

    @Override
    public int[] getPlay(Card card, long millisRemaining) {
        int id = card.getSuit() * 13 + card.getRank();
        String[] words = call("play " + id + " " + millisRemaining, "play ").split(" ");
        return new int[] {Integer.parseInt(words[1]), Integer.parseInt(words[2])};
    }

    @Override
    public String getName() {
        return name;
    }
}
