// The JVM side of pokersquares' Java players (src/pokersquares/players/java.py).
//
// Drives one contest PokerSquaresPlayer over a line protocol on stdin/stdout. It uses the
// Java standard library only and reaches the contest framework's classes (PokerSquaresPlayer,
// Card, PokerSquaresPointSystem, from the user's classpath) by reflection, so it compiles
// once, without the framework, and works with any copy of it.
//
//   java -cp SHIM:USER_CLASSPATH PokerSquaresShim [--check] PLAYER_CLASS
//   -> "ready NAME" (or "error MESSAGE" and exit 2); with --check it exits 0 after "ready".
//   "system P0 .. P9 MILLIS" -> setPointSystem(new PokerSquaresPointSystem(points), millis) -> "ok"
//   "init"                   -> init()                                                  -> "ok"
//   "play CARD_ID MILLIS"    -> getPlay(card, millis) -> "play R C" ("play null", "play a b c" as given)
//   a call that throws       -> "raised CLASS: MESSAGE"
//
// The player's own System.out goes to stderr, so that only this protocol is on stdout. A
// thread reads stdin; at its end (the Python side exited or was killed) the JVM halts at once,
// even while the player is stuck inside a call.

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

public final class PokerSquaresShim {
    private static PrintStream protocol;

    private static void reply(String line) {
        protocol.print(line.replace('\n', ' ').replace('\r', ' ') + "\n");
        protocol.flush();
    }

    private static String describe(Throwable t) {
        if (t instanceof InvocationTargetException && t.getCause() != null) {
            t = t.getCause();
        }
        String message = t.getMessage();
        return t.getClass().getName() + (message == null ? "" : ": " + message);
    }

    private static Class<?> framework(String name) throws ClassNotFoundException {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new ClassNotFoundException("the contest framework's class " + name
                + " is not on the classpath");
        }
    }

    /** The framework's Card for an id (suit * 13 + rank), whichever accessor this copy has. */
    private static Object card(Class<?> cardClass, int id) throws Exception {
        try {
            return cardClass.getMethod("getCard", int.class).invoke(null, id);
        } catch (NoSuchMethodException e) {
            try {
                Object all = cardClass.getMethod("getAllCards").invoke(null);
                return ((Object[]) all)[id];
            } catch (NoSuchMethodException e2) {
                return cardClass.getConstructor(int.class, int.class).newInstance(id % 13, id / 13);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        boolean check = args.length == 2 && args[0].equals("--check");
        if (args.length != (check ? 2 : 1)) {
            reply("error usage: PokerSquaresShim [--check] PLAYER_CLASS");
            System.exit(2);
        }
        String className = args[args.length - 1];

        Object player;
        Method setPointSystem, init, getPlay;
        Constructor<?> newPointSystem;
        Class<?> cardClass;
        try {
            Class<?> playerInterface = framework("PokerSquaresPlayer");
            Class<?> pointSystemClass = framework("PokerSquaresPointSystem");
            cardClass = framework("Card");
            Class<?> playerClass;
            try {
                playerClass = Class.forName(className);
            } catch (ClassNotFoundException e) {
                throw new ClassNotFoundException("class " + className + " is not on the classpath");
            }
            if (!playerInterface.isAssignableFrom(playerClass)) {
                throw new IllegalArgumentException("class " + className
                    + " does not implement PokerSquaresPlayer");
            }
            setPointSystem = playerInterface.getMethod("setPointSystem", pointSystemClass, long.class);
            init = playerInterface.getMethod("init");
            getPlay = playerInterface.getMethod("getPlay", cardClass, long.class);
            Method getName = playerInterface.getMethod("getName");
            newPointSystem = pointSystemClass.getConstructor(int[].class);
            player = playerClass.getConstructor().newInstance();
            Object name = getName.invoke(player);
            reply("ready " + (name == null ? className : name.toString()));
        } catch (NoSuchMethodException e) {
            reply("error the framework's classes lack a method or constructor: " + e.getMessage());
            System.exit(2);
            return;
        } catch (Throwable t) {
            reply("error " + (t instanceof ClassNotFoundException || t instanceof IllegalArgumentException
                ? t.getMessage() : "cannot create " + className + ": " + describe(t)));
            System.exit(2);
            return;
        }
        if (check) {
            System.exit(0);
        }

        BlockingQueue<String> commands = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    commands.add(line);
                }
            } catch (Exception e) {
                // stdin broken: the same as its end
            }
            Runtime.getRuntime().halt(0);
        }, "pokersquares-stdin");
        reader.setDaemon(true);
        reader.start();

        while (true) {
            String[] words = commands.take().trim().split("\\s+");
            try {
                switch (words[0]) {
                    case "system": {
                        int[] points = new int[10];
                        for (int i = 0; i < 10; i++) {
                            points[i] = Integer.parseInt(words[1 + i]);
                        }
                        setPointSystem.invoke(player, newPointSystem.newInstance((Object) points),
                            Long.parseLong(words[11]));
                        reply("ok");
                        break;
                    }
                    case "init":
                        init.invoke(player);
                        reply("ok");
                        break;
                    case "play": {
                        Object card = card(cardClass, Integer.parseInt(words[1]));
                        int[] play = (int[]) getPlay.invoke(player, card, Long.parseLong(words[2]));
                        StringBuilder answer = new StringBuilder("play");
                        if (play == null) {
                            answer.append(" null");
                        } else {
                            for (int v : play) {
                                answer.append(' ').append(v);
                            }
                        }
                        reply(answer.toString());
                        break;
                    }
                    case "quit":
                        System.exit(0);
                        break;
                    default:
                        reply("error unknown command " + words[0]);
                }
            } catch (Throwable t) {
                reply("raised " + describe(t));
            }
        }
    }
}
