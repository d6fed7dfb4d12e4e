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
// error output goes to this JVM's. A module:Class player's class also gives the folder
// its module was imported from, put ahead of the PYTHONPATH the tournament runs with.
//
// Processes. The framework plays one player's sequence at a time (setPointSystem, then
// its games), so an instance that has played a game and is between games is done until
// it is prepared again. When an instance is constructed or prepared, every other such
// instance of the same exported class gives up its Python process, which is kept idle
// for the next instance of the class that needs one (at most IDLE_PER_CLASS are kept;
// the rest end). An instance takes an idle process when it is constructed, or when it
// has none and is prepared or asked to init; it starts a new one only if none is idle.
// So a tournament that makes a fresh instance per point system holds one process per
// exported class, not one per instance, and two instances of one class that take turns
// system after system (the framework's playTournament with the same players) hand their
// processes to each other instead of each starting a new one in each preparation (about
// 1.5 s of its budget). A process taken over is prepared for the new instance's point
// system before it plays (setPointSystem, or at init its last one). An instance never
// gives up its process while it is inside a call, in a game (after init, before its
// 25th play), or prepared and not yet played (a tournament that prepares every player
// before any game). An instance without a process gets one when it is next prepared
// (inside that budget: the player is told what is left of it) or, if it is asked to init
// without a setPointSystem first, at init, which then prepares it again for its last
// point system with that system's milliseconds (outside the framework's clocks, which do
// not time init). Every process ends when the JVM does (its stdin closes; stopped after 2 s).
//
// Bounds. No call waits for ever: getPlay waits the game's time left and 1 s more,
// setPointSystem its milliseconds and 10 s more, init 10 s (and 120 s for a new process
// it starts); the constructor waits until the player is ready (a cold cache compiles its
// kernels). A process that exits, or does not answer in time (it is then killed), is said
// on stderr; getPlay then answers (-1, -1) and init returns (its game's plays answer the
// same), which the framework scores as the game's penalty: the contest's framework catches
// nothing, and a throw would end its tournament. setPointSystem throws (the framework runs
// it on a thread of its own). The next setPointSystem or init starts a new process. The
// player's own error ("raised") is thrown as an IllegalStateException, as before.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

public class PokerSquaresPython implements PokerSquaresPlayer {
    static final long PLAY_SLACK_MILLIS = 1000;     // past a game's time left: the game is lost anyway
    static final long SYSTEM_SLACK_MILLIS = 10000;  // past a preparation's milliseconds
    static final long INIT_MILLIS = 10000;
    static final long RESTART_MILLIS = 120000;      // a new process at init (its kernels cached by the first)
    static final int IDLE_PER_CLASS = 1;            // processes given up and kept for the next instance
    private static final int CARDS_PER_GAME = 25;
    /** Every instance that has a process; guarded by itself. */
    private static final List<PokerSquaresPython> LIVE = new ArrayList<>();
    /** Processes given up by a done instance, oldest first, for the next instance of their command; guarded by LIVE. */
    private static final List<Session> IDLE = new ArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(PokerSquaresPython::stopAll, "pokersquares-stop"));
    }

    private final String[] pythonPath;
    private final String[] command;
    private final String name;
    private volatile Session session;  // null once ended (or its process died): the next setPointSystem or init starts one
    private int[] points;         // the last point system and its milliseconds, to prepare a new process again
    private long millis;
    private boolean busy;         // inside a call (guarded by LIVE)
    private int playsLeft;        // in the current game; 0 between games (guarded by LIVE)
    private boolean played;       // a game was started since the last setPointSystem (guarded by LIVE)
    private final boolean[] filled = new boolean[CARDS_PER_GAME];  // the cells answered in this game

    /** Starts {@code command} (a pokersquares stdio-player) and waits until its player is ready. */
    public PokerSquaresPython(String... command) {
        this(new String[0], command);
    }

    /**
     * Starts {@code command} with the folders {@code pythonPath} ahead of any PYTHONPATH
     * already set (where a module:Class player's module was imported from when exported).
     */
    public PokerSquaresPython(String[] pythonPath, String[] command) {
        this.pythonPath = pythonPath.clone();
        this.command = command.clone();
        takeOthers();
        if (session == null) {
            start(0);
        }
        name = session.name;
    }

    private boolean sameCommand(Session s) {
        return getClass() == s.owner && java.util.Arrays.equals(command, s.command)
               && java.util.Arrays.equals(pythonPath, s.pythonPath);
    }

    /** A new process for this instance, ready within {@code readyMillis} ms (0: as long as it takes). */
    private void start(long readyMillis) {
        Session s = new Session(getClass(), pythonPath, command, readyMillis);
        synchronized (LIVE) {
            session = s;
            LIVE.add(this);
        }
    }

    /**
     * The other instances of this command that are done give up their processes (kept
     * idle, at most IDLE_PER_CLASS of them; the rest end); this instance, if it has none,
     * takes one of them. See the header.
     */
    private void takeOthers() {
        List<Session> ended = new ArrayList<>();
        synchronized (LIVE) {
            for (java.util.Iterator<PokerSquaresPython> it = LIVE.iterator(); it.hasNext(); ) {
                PokerSquaresPython other = it.next();
                if (other != this && other.session != null && sameCommand(other.session) && !other.busy
                        && other.playsLeft == 0 && other.played) {
                    IDLE.add(other.session);
                    other.session = null;
                    it.remove();
                }
            }
            takeIdle();
            int kept = 0;
            for (int i = IDLE.size() - 1; i >= 0; i--) {  // the newest kept
                if (sameCommand(IDLE.get(i)) && ++kept > IDLE_PER_CLASS) {
                    ended.add(IDLE.remove(i));
                }
            }
        }
        for (Session s : ended) {
            s.end();
        }
    }

    /** This instance, if it has no process, takes an idle one of its command (the newest); guarded by LIVE. */
    private void takeIdle() {
        for (int i = IDLE.size() - 1; session == null && i >= 0; i--) {
            Session s = IDLE.get(i);
            if (!s.process.isAlive()) {  // killed from outside while idle: of no use
                IDLE.remove(i);
            } else if (sameCommand(s)) {
                session = IDLE.remove(i);
                LIVE.add(this);
            }
        }
    }

    private static void stopAll() {
        List<Session> sessions = new ArrayList<>();
        synchronized (LIVE) {
            for (PokerSquaresPython p : LIVE) {
                if (p.session != null) {
                    sessions.add(p.session);
                }
            }
            sessions.addAll(IDLE);
        }
        for (Session s : sessions) {
            s.closeInput();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        for (Session s : sessions) {
            try {
                if (!s.process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    s.process.destroy();
                }
            } catch (InterruptedException e) {
                s.process.destroy();
            }
        }
    }

    private void enter() {
        synchronized (LIVE) {
            busy = true;
        }
    }

    private void leave() {
        synchronized (LIVE) {
            busy = false;
        }
    }

    /**
     * At init, a process for this instance (an idle one of its command, else a new one),
     * prepared again for its last point system.
     */
    private void restart() {
        synchronized (LIVE) {
            takeIdle();
        }
        if (session == null) {
            start(RESTART_MILLIS);
        }
        if (points != null) {
            call(systemCommand(points, millis), "ok", millis + SYSTEM_SLACK_MILLIS);
        }
    }

    /** The Python process failed (did not answer in time, exited, could not start): not the player's own error. */
    static final class Ended extends IllegalStateException {
        Ended(String message) {
            super(message);
        }
    }

    /** Sends {@code command}; its answer, within {@code timeout} ms; a failed process is ended here. */
    private String call(String command, String expected, long timeout) {
        Session s = session;
        if (s == null) {
            throw new Ended("pokersquares: " + name + "'s Python process ended earlier in this "
                            + "game; it starts again at the next init or setPointSystem");
        }
        String line;
        try {
            line = s.ask(command, timeout);
        } catch (RuntimeException e) {
            s.kill();
            synchronized (LIVE) {
                session = null;
                LIVE.remove(this);
            }
            throw new Ended(e.getMessage());
        }
        if (line.startsWith("raised ")) {
            throw new IllegalStateException("pokersquares: " + line.substring(7));
        }
        if (!line.startsWith(expected)) {
            throw new IllegalStateException("pokersquares: unexpected answer '" + line + "' to '" + command + "'");
        }
        return line;
    }

    private static String systemCommand(int[] points, long millis) {
        StringBuilder command = new StringBuilder("system");
        for (int p : points) {
            command.append(' ').append(p);
        }
        return command.append(' ').append(millis).toString();
    }

    @Override
    public synchronized void setPointSystem(PokerSquaresPointSystem system, long millis) {
        long start = System.nanoTime();
        int[] table = system.getScoreTable();
        enter();
        try {
            synchronized (LIVE) {
                playsLeft = 0;
                played = false;
            }
            this.points = table.clone();
            this.millis = millis;
            takeOthers();  // took an idle process if there was one
            if (session == null) {
                start(millis + SYSTEM_SLACK_MILLIS);
            }
            long left = Math.max(0, millis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            call(systemCommand(table, left), "ok", left + SYSTEM_SLACK_MILLIS);
        } finally {
            leave();
        }
    }

    @Override
    public synchronized void init() {
        enter();
        try {
            synchronized (LIVE) {
                playsLeft = 0;
                played = true;
            }
            java.util.Arrays.fill(filled, false);
            // A process that fails here is said on stderr, not thrown: the contest's framework
            // catches nothing, and a throw would end its tournament; the game's plays are then
            // answered (-1, -1), which it scores as the game's penalty.
            try {
                if (session == null) {
                    restart();
                }
                call("init", "ok", INIT_MILLIS);
            } catch (Ended e) {
                System.err.println(e.getMessage() + "; this game's plays are answered (-1, -1)");
                return;
            } catch (RuntimeException e) {
                if (session != null) {
                    throw e;  // the player's own error at init
                }
                System.err.println(e.getMessage() + "; this game's plays are answered (-1, -1)");
                return;
            }
            synchronized (LIVE) {
                playsLeft = CARDS_PER_GAME;
            }
        } finally {
            leave();
        }
    }

    @Override
    public synchronized int[] getPlay(Card card, long millisRemaining) {
        int id = card.getSuit() * 13 + card.getRank();
        long start = System.nanoTime();
        enter();
        boolean goesOn = false;
        try {
            String[] words;
            try {
                words = call("play " + id + " " + millisRemaining, "play ",
                             Math.max(0, millisRemaining) + PLAY_SLACK_MILLIS).split(" ");
            } catch (Ended e) {
                // Not thrown: the contest's framework catches nothing, and a throw would end its
                // tournament; an answer out of the grid is scored as this game's penalty.
                if (session == null && playsLeft > 0) {
                    System.err.println(e.getMessage() + "; this play is answered (-1, -1)");
                }
                return new int[] {-1, -1};
            }
            int[] cell = {Integer.parseInt(words[1]), Integer.parseInt(words[2])};
            long used = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // The framework ends the game at an answer past its time or not on an empty cell.
            boolean inGrid = cell[0] >= 0 && cell[0] < 5 && cell[1] >= 0 && cell[1] < 5;
            goesOn = used <= millisRemaining && inGrid && !filled[cell[0] * 5 + cell[1]];
            if (goesOn) {
                filled[cell[0] * 5 + cell[1]] = true;
            }
            return cell;
        } finally {
            synchronized (LIVE) {
                playsLeft = goesOn ? Math.max(0, playsLeft - 1) : 0;  // a game that failed is over
                busy = false;
            }
        }
    }

    @Override
    public String getName() {
        return name;
    }

    /** One Python process: its pipes, and its answers as a reader thread reads them. */
    private static final class Session {
        private static final String END = new String("end of the answers");  // a marker, compared by identity
        final Class<?> owner;  // the exported class, command and folders it was started for
        final String[] pythonPath;
        final String[] command;
        final Process process;
        final String name;
        private final Writer toPython;
        private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

        /** Starts the process and waits for "ready" ({@code readyMillis} ms; 0: as long as it takes). */
        Session(Class<?> owner, String[] pythonPath, String[] command, long readyMillis) {
            this.owner = owner;
            this.pythonPath = pythonPath;
            this.command = command;
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
                throw new IllegalStateException("pokersquares: cannot start " + command[0] + ": " + e.getMessage(), e);
            }
            toPython = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            BufferedReader fromPython = new BufferedReader(new InputStreamReader(process.getInputStream(),
                                                                                 StandardCharsets.UTF_8));
            Thread reader = new Thread(() -> {
                try {
                    for (String line; (line = fromPython.readLine()) != null; ) {
                        answers.add(line);
                    }
                } catch (IOException e) {
                    // the process is gone: as the end of its answers
                } finally {
                    answers.add(END);
                }
            }, "pokersquares-answers");
            reader.setDaemon(true);
            reader.start();
            String line;
            try {
                line = next(readyMillis, "its start");
            } catch (RuntimeException e) {
                kill();
                throw e;
            }
            if (!line.startsWith("ready ")) {
                kill();
                throw new IllegalStateException("pokersquares: " + (line.startsWith("error ") ? line.substring(6) : line));
            }
            name = line.substring(6);
        }

        /** The next answer, within {@code timeout} ms (0: no limit). */
        private String next(long timeout, String what) {
            String line;
            try {
                line = timeout > 0 ? answers.poll(timeout, TimeUnit.MILLISECONDS) : answers.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("pokersquares: interrupted waiting for the Python player", e);
            }
            if (line == null) {
                throw new IllegalStateException("pokersquares: the Python player did not answer " + what + " within "
                                                + timeout + " ms; its process was stopped");
            }
            if (line == END) {
                answers.add(END);
                try {
                    if (!process.waitFor(2, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                        throw new IllegalStateException("pokersquares: the Python player's process closed its output; "
                                                        + "it was stopped");
                    }
                    throw new IllegalStateException("pokersquares: the Python player's process exited with code "
                                                    + process.exitValue());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("pokersquares: interrupted waiting for the Python player", e);
                }
            }
            return line;
        }

        String ask(String command, long timeout) {
            try {
                toPython.write(command + "\n");
                toPython.flush();
            } catch (IOException e) {
                throw new IllegalStateException("pokersquares: the Python player's process is gone (" + e.getMessage()
                                                + ")", e);
            }
            return next(timeout, "'" + command + "'");
        }

        void closeInput() {
            try {
                toPython.close();
            } catch (IOException e) {
                process.destroy();
            }
        }

        /** Its input ends (it exits once idle); stopped if it has not within 5 s. Does not wait. */
        void end() {
            closeInput();
            Thread reaper = new Thread(() -> {
                try {
                    if (!process.waitFor(5, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    process.destroyForcibly();
                }
            }, "pokersquares-end");
            reaper.setDaemon(true);
            reaper.start();
        }

        void kill() {
            process.destroyForcibly();
        }
    }
}
