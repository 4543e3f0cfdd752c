// A long-lived compile service: JSON requests on stdin, one JSON answer per line on stdout.
// Sources stay in memory; one standard file manager (its jar and module indexes) is shared by every
// request; nothing is generated (javac's analyze: attribution and flow only).
//
// usage: java CompileService CLASSPATH
// request:  {"op":"compile","together":false,"units":[{"id":"a","source":"..."}]}
//           {"op":"ping"}   {"op":"sleep","ms":N} (tests: a request that hangs)
// answer:   {"ok":true,"results":[{"id":"a","ok":true,"errors":0,"diagnostics":[...]}],"ms":12}
// "together": all units in one javac task (they must declare distinct packages); otherwise one task each.

import java.io.*;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.*;
import javax.tools.*;
import com.sun.source.util.JavacTask;

public class CompileService {
    static JavaCompiler compiler;
    static StandardJavaFileManager fileManager;
    static List<String> baseOptions;

    public static void main(String[] args) throws Exception {
        String classpath = args.length > 0 ? args[0] : "";
        compiler = ToolProvider.getSystemJavaCompiler();
        fileManager = compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        baseOptions = new ArrayList<>(List.of("-proc:none", "-Xlint:none", "-nowarn", "-implicit:none",
                "-Xmaxerrs", "100000", "-Xmaxwarns", "0", "-XDshould-stop.ifError=FLOW",
                "-encoding", "UTF-8", "-sourcepath", ""));
        if (!classpath.isEmpty()) {
            baseOptions.add("-classpath");
            baseOptions.add(classpath);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
        // Keep javac's own chatter off the protocol stream.
        System.setOut(new PrintStream(OutputStream.nullOutputStream()));
        out.println("ready");
        out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            String answer;
            try {
                answer = handle(new Json(line).parse());
            } catch (Throwable t) {
                answer = "{\"ok\":false,\"error\":" + q(t.toString()) + "}";
            }
            out.println(answer);
            out.flush();
        }
    }

    @SuppressWarnings("unchecked")
    static String handle(Object request) {
        Map<String, Object> req = (Map<String, Object>) request;
        String op = String.valueOf(req.getOrDefault("op", "compile"));
        if (op.equals("ping")) return "{\"ok\":true,\"java\":" + q(System.getProperty("java.version")) + "}";
        if (op.equals("sleep")) {  // a request that hangs, for testing that requests are bounded
            try { Thread.sleep(((Number) req.getOrDefault("ms", 1000.0)).longValue()); } catch (InterruptedException e) { }
            return "{\"ok\":true}";
        }
        long start = System.nanoTime();
        List<Object> units = (List<Object>) req.get("units");
        boolean together = Boolean.TRUE.equals(req.get("together"));
        List<Unit> all = new ArrayList<>();
        for (Object u : units) {
            Map<String, Object> m = (Map<String, Object>) u;
            all.add(new Unit(String.valueOf(m.get("id")), String.valueOf(m.get("source")), all.size()));
        }
        if (together) compile(all);
        else for (Unit u : all) compile(List.of(u));
        StringBuilder b = new StringBuilder("{\"ok\":true,\"results\":[");
        for (int i = 0; i < all.size(); i++) {
            if (i > 0) b.append(",");
            b.append(all.get(i).json());
        }
        b.append("],\"ms\":").append((System.nanoTime() - start) / 1_000_000).append("}");
        return b.toString();
    }

    static void compile(List<Unit> units) {
        Map<URI, Unit> byUri = new HashMap<>();
        for (Unit u : units) byUri.put(u.toUri(), u);
        DiagnosticListener<JavaFileObject> listener = d -> {
            JavaFileObject src = d.getSource();
            Unit u = src == null ? null : byUri.get(src.toUri());
            if (u == null) {
                // A diagnostic with no snippet source (e.g. a broken class file): charge every unit.
                for (Unit each : units) each.add(d);
            } else {
                u.add(d);
            }
        };
        try {
            JavacTask task = (JavacTask) compiler.getTask(null, fileManager, listener, baseOptions, null, units);
            task.analyze();
        } catch (Throwable t) {
            for (Unit u : units) u.crash(t);
        }
    }

    static final class Unit extends SimpleJavaFileObject {
        final String id;
        final String source;
        int errors;
        final StringBuilder diagnostics = new StringBuilder();
        int count;

        Unit(String id, String source, int index) {
            super(URI.create("mem:///u" + index + "/Snippet.java"), JavaFileObject.Kind.SOURCE);
            this.id = id;
            this.source = source;
        }

        @Override public CharSequence getCharContent(boolean ignoreEncodingErrors) { return source; }

        // Any public class name is accepted: snippets are compiled under one file name.
        @Override public boolean isNameCompatible(String simpleName, JavaFileObject.Kind kind) { return true; }

        void add(Diagnostic<? extends JavaFileObject> d) {
            if (d.getKind() != Diagnostic.Kind.ERROR) return;
            errors++;
            if (count++ >= 200) return;
            if (diagnostics.length() > 0) diagnostics.append(",");
            diagnostics.append("{\"kind\":").append(q(d.getKind().toString().toLowerCase(Locale.ROOT)))
                    .append(",\"line\":").append(d.getLineNumber())
                    .append(",\"col\":").append(d.getColumnNumber())
                    .append(",\"start\":").append(d.getStartPosition())
                    .append(",\"end\":").append(d.getEndPosition())
                    .append(",\"code\":").append(q(String.valueOf(d.getCode())))
                    .append(",\"message\":").append(q(d.getMessage(Locale.ROOT)))
                    .append("}");
        }

        void crash(Throwable t) {
            errors++;
            if (diagnostics.length() > 0) diagnostics.append(",");
            diagnostics.append("{\"kind\":\"crash\",\"line\":-1,\"col\":-1,\"start\":-1,\"end\":-1,\"code\":\"crash\",\"message\":")
                    .append(q(t.toString())).append("}");
        }

        String json() {
            return "{\"id\":" + q(id) + ",\"ok\":" + (errors == 0) + ",\"errors\":" + errors
                    + ",\"diagnostics\":[" + diagnostics + "]}";
        }
    }

    static String q(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2);
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    // A small JSON reader (objects, arrays, strings, numbers, literals): the requests are ours.
    static final class Json {
        final String s;
        int i;

        Json(String s) { this.s = s; }

        Object parse() {
            Object v = value();
            ws();
            if (i != s.length()) throw new IllegalArgumentException("trailing characters at " + i);
            return v;
        }

        void ws() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }

        Object value() {
            ws();
            if (i >= s.length()) throw new IllegalArgumentException("unexpected end");
            char c = s.charAt(i);
            if (c == '{') return object();
            if (c == '[') return array();
            if (c == '"') return string();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            if (start == i) throw new IllegalArgumentException("unexpected character at " + i);
            return Double.parseDouble(s.substring(start, i));
        }

        Map<String, Object> object() {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            ws();
            if (s.charAt(i) == '}') { i++; return m; }
            while (true) {
                ws();
                String k = string();
                ws();
                expect(':');
                m.put(k, value());
                ws();
                if (s.charAt(i) == ',') { i++; continue; }
                expect('}');
                return m;
            }
        }

        List<Object> array() {
            List<Object> a = new ArrayList<>();
            i++;
            ws();
            if (s.charAt(i) == ']') { i++; return a; }
            while (true) {
                a.add(value());
                ws();
                if (s.charAt(i) == ',') { i++; continue; }
                expect(']');
                return a;
            }
        }

        void expect(char c) {
            if (i >= s.length() || s.charAt(i) != c) throw new IllegalArgumentException("expected " + c + " at " + i);
            i++;
        }

        String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c != '\\') { b.append(c); continue; }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': b.append('\n'); break;
                    case 't': b.append('\t'); break;
                    case 'r': b.append('\r'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: b.append(e);
                }
            }
        }
    }
}
