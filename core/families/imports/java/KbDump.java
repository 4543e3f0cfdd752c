// Dumps a type knowledge base (public API of JDK modules and jars) as JSON lines, without loading any
// class: javac's symbol tables (javax.lang.model) read the class files. One line per type, sorted by
// origin then canonical name, so the output depends only on the JDK and the jars.
//
// usage: java KbDump OUT.jsonl JAR...     (the jars are also the classpath)

import java.io.*;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.jar.*;
import javax.lang.model.element.*;
import javax.lang.model.type.*;
import javax.lang.model.util.*;
import javax.tools.*;
import com.sun.source.util.JavacTask;

public class KbDump {
    static Elements elements;
    static Types types;

    public static void main(String[] args) throws Exception {
        String out = args[0];
        List<String> jars = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager fm = compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        List<String> options = new ArrayList<>(List.of("-proc:none", "-Xlint:none"));
        if (!jars.isEmpty()) {
            options.add("-classpath");
            options.add(String.join(File.pathSeparator, jars));
        }
        JavaFileObject dummy = new SimpleJavaFileObject(URI.create("string:///KbDummy.java"), JavaFileObject.Kind.SOURCE) {
            @Override public CharSequence getCharContent(boolean ignore) { return "class KbDummy {}"; }
        };
        JavacTask task = (JavacTask) compiler.getTask(null, fm, d -> {}, options, null, List.of(dummy));
        task.analyze();
        elements = task.getElements();
        types = task.getTypes();
        try (Writer w = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(out), StandardCharsets.UTF_8), 1 << 16)) {
            // JDK: every observable module's unqualified exports.
            List<ModuleElement> modules = new ArrayList<>(elements.getAllModuleElements());
            modules.sort(Comparator.comparing(m -> m.getQualifiedName().toString()));
            for (ModuleElement module : modules) {
                String name = module.getQualifiedName().toString();
                if (module.isUnnamed() || !(name.startsWith("java.") || name.startsWith("jdk."))) continue;
                List<String> pkgs = new ArrayList<>();
                for (ModuleElement.Directive d : module.getDirectives()) {
                    if (d instanceof ModuleElement.ExportsDirective) {
                        ModuleElement.ExportsDirective e = (ModuleElement.ExportsDirective) d;
                        if (e.getTargetModules() == null) pkgs.add(e.getPackage().getQualifiedName().toString());
                    }
                }
                Collections.sort(pkgs);
                for (String pkg : pkgs) {
                    PackageElement p = elements.getPackageElement(module, pkg);
                    if (p == null) continue;
                    List<TypeElement> tops = new ArrayList<>();
                    for (Element e : p.getEnclosedElements()) {
                        if (e instanceof TypeElement) tops.add((TypeElement) e);
                    }
                    tops.sort(Comparator.comparing(t -> t.getQualifiedName().toString()));
                    for (TypeElement t : tops) dumpType(w, t, "jdk:" + name, null);
                }
            }
            // Jars: top-level class entries (nested types are reached from their outer type).
            for (String jar : jars) {
                String origin = "jar:" + new File(jar).getName();
                List<String> names = new ArrayList<>();
                try (JarFile jf = new JarFile(jar)) {
                    Enumeration<JarEntry> entries = jf.entries();
                    while (entries.hasMoreElements()) {
                        String entry = entries.nextElement().getName();
                        if (!entry.endsWith(".class") || entry.contains("$") || entry.startsWith("META-INF/")
                                || entry.endsWith("module-info.class") || entry.endsWith("package-info.class")) continue;
                        names.add(entry.substring(0, entry.length() - 6).replace('/', '.'));
                    }
                }
                Collections.sort(names);
                for (String n : names) {
                    TypeElement t = elements.getTypeElement(n);
                    if (t == null) continue;
                    dumpType(w, t, origin, null);
                }
            }
        }
    }

    static boolean isPublic(Element e) { return e.getModifiers().contains(Modifier.PUBLIC); }

    static void dumpType(Writer w, TypeElement t, String origin, String outer) throws IOException {
        try {
            dumpTypeUnchecked(w, t, origin, outer);
        } catch (RuntimeException | Error ex) {
            // A class file that references a missing one (javac's CompletionFailure): skip the type.
        }
    }

    static void dumpTypeUnchecked(Writer w, TypeElement t, String origin, String outer) throws IOException {
        boolean pub = isPublic(t);
        // Non-public top-level types are kept (their public members reach public subclasses); non-public
        // nested types are never accessible from a snippet.
        if (outer != null && !pub) return;
        StringBuilder b = new StringBuilder(512);
        b.append("{\"fqn\":").append(q(t.getQualifiedName().toString()));
        b.append(",\"simple\":").append(q(t.getSimpleName().toString()));
        b.append(",\"kind\":").append(q(t.getKind().toString().toLowerCase(Locale.ROOT)));
        b.append(",\"origin\":").append(q(origin));
        b.append(",\"public\":").append(pub);
        if (outer != null) b.append(",\"outer\":").append(q(outer));
        Set<Modifier> mods = t.getModifiers();
        if (mods.contains(Modifier.ABSTRACT)) b.append(",\"abstract\":true");
        if (mods.contains(Modifier.STATIC)) b.append(",\"static\":true");
        if (!t.getTypeParameters().isEmpty()) b.append(",\"tparams\":").append(t.getTypeParameters().size());
        if (elements.isDeprecated(t)) b.append(",\"deprecated\":true");
        TypeMirror sup = t.getSuperclass();
        if (sup.getKind() == TypeKind.DECLARED) b.append(",\"super\":").append(q(erased(sup)));
        // A supertype whose class file is missing: named anyway, so the type is known to be incomplete.
        else if (sup.getKind() == TypeKind.ERROR) b.append(",\"super\":").append(q(sup.toString()));
        List<String> ifaces = new ArrayList<>();
        for (TypeMirror i : t.getInterfaces()) ifaces.add(erased(i));
        if (!ifaces.isEmpty()) b.append(",\"interfaces\":").append(list(ifaces));
        List<String> ctors = new ArrayList<>();
        List<String> methods = new ArrayList<>();
        List<String> fields = new ArrayList<>();
        List<TypeElement> nested = new ArrayList<>();
        for (Element e : t.getEnclosedElements()) {
            if (e instanceof TypeElement) { nested.add((TypeElement) e); continue; }
            if (!isPublic(e)) continue;
            try {
                if (e.getKind() == ElementKind.CONSTRUCTOR) ctors.add(executable((ExecutableElement) e, false));
                else if (e.getKind() == ElementKind.METHOD) methods.add(executable((ExecutableElement) e, true));
                else if (e.getKind() == ElementKind.FIELD || e.getKind() == ElementKind.ENUM_CONSTANT) fields.add(field((VariableElement) e));
            } catch (RuntimeException | Error ex) {
                // a member whose signature names a missing class: leave it out
            }
        }
        if (!ctors.isEmpty()) b.append(",\"ctors\":[").append(String.join(",", ctors)).append("]");
        if (!methods.isEmpty()) b.append(",\"methods\":[").append(String.join(",", methods)).append("]");
        if (!fields.isEmpty()) b.append(",\"fields\":[").append(String.join(",", fields)).append("]");
        b.append("}\n");
        w.write(b.toString());
        nested.sort(Comparator.comparing(n -> n.getQualifiedName().toString()));
        for (TypeElement n : nested) dumpType(w, n, origin, t.getQualifiedName().toString());
    }

    static String executable(ExecutableElement m, boolean method) {
        StringBuilder b = new StringBuilder(128);
        b.append("{");
        if (method) b.append("\"name\":").append(q(m.getSimpleName().toString())).append(",");
        List<String> params = new ArrayList<>();
        List<String> generic = new ArrayList<>();
        boolean tv = false;
        for (VariableElement p : m.asType() instanceof ExecutableType ? m.getParameters() : List.<VariableElement>of()) {
            params.add(erased(p.asType()));
            generic.add(p.asType().toString());
            tv |= hasTypeVar(p.asType());
        }
        b.append("\"params\":").append(list(params));
        if (tv) b.append(",\"gparams\":").append(list(generic));
        if (tv) b.append(",\"ptv\":true");
        if (method) {
            TypeMirror r = m.getReturnType();
            b.append(",\"ret\":").append(q(erased(r)));
            if (hasTypeVar(r) || r.getKind() == TypeKind.DECLARED && !((DeclaredType) r).getTypeArguments().isEmpty()) {
                b.append(",\"gret\":").append(q(r.toString()));
            }
            if (hasTypeVar(r)) b.append(",\"rtv\":true");
            Set<Modifier> mods = m.getModifiers();
            if (mods.contains(Modifier.STATIC)) b.append(",\"static\":true");
            if (mods.contains(Modifier.ABSTRACT)) b.append(",\"abstract\":true");
        }
        if (!m.getTypeParameters().isEmpty()) b.append(",\"mtparams\":").append(m.getTypeParameters().size());
        if (m.isVarArgs()) b.append(",\"varargs\":true");
        if (elements.isDeprecated(m)) b.append(",\"deprecated\":true");
        List<String> thrown = new ArrayList<>();
        for (TypeMirror x : m.getThrownTypes()) thrown.add(erased(x));
        if (!thrown.isEmpty()) b.append(",\"throws\":").append(list(thrown));
        b.append("}");
        return b.toString();
    }

    static String field(VariableElement f) {
        StringBuilder b = new StringBuilder(64);
        b.append("{\"name\":").append(q(f.getSimpleName().toString()));
        b.append(",\"type\":").append(q(erased(f.asType())));
        if (hasTypeVar(f.asType())) b.append(",\"tv\":true");
        Set<Modifier> mods = f.getModifiers();
        if (mods.contains(Modifier.STATIC)) b.append(",\"static\":true");
        if (mods.contains(Modifier.FINAL)) b.append(",\"final\":true");
        if (elements.isDeprecated(f)) b.append(",\"deprecated\":true");
        b.append("}");
        return b.toString();
    }

    static String erased(TypeMirror t) {
        return types.erasure(t).toString();
    }

    static boolean hasTypeVar(TypeMirror t) {
        switch (t.getKind()) {
            case TYPEVAR: return true;
            case ARRAY: return hasTypeVar(((ArrayType) t).getComponentType());
            case WILDCARD: {
                WildcardType w = (WildcardType) t;
                return (w.getExtendsBound() != null && hasTypeVar(w.getExtendsBound()))
                        || (w.getSuperBound() != null && hasTypeVar(w.getSuperBound()));
            }
            case DECLARED: {
                for (TypeMirror a : ((DeclaredType) t).getTypeArguments()) if (hasTypeVar(a)) return true;
                TypeMirror enclosing = ((DeclaredType) t).getEnclosingType();
                return enclosing.getKind() == TypeKind.DECLARED && hasTypeVar(enclosing);
            }
            default: return false;
        }
    }

    static String list(List<String> items) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) b.append(",");
            b.append(q(items.get(i)));
        }
        return b.append("]").toString();
    }

    static String q(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2);
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }
}
