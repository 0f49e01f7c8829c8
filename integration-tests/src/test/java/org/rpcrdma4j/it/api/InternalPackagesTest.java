package org.rpcrdma4j.it.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What is public stays public: a library module's {@code internal} packages are its own. No other module's main code
 * imports them, and no public or protected member of a public type outside them takes or gives one of their types.
 * The modules are read from the checkout (sources) and from their compiled classes. {@code benchmarks} is not a
 * library and may look inside the device to measure it.
 */
class InternalPackagesTest {
    /** The modules whose code ships (a library or the CLI). */
    private static final List<String> MODULES = List.of("rpc-rdma-codec", "rdma-verbs", "rdma-verbs-disni",
            "chunk-registration", "xprt-rdma", "nfs", "mount-tool");
    private static final Pattern INTERNAL_IMPORT =
            Pattern.compile("^import\\s+(?:static\\s+)?(org\\.rpcrdma4j\\.[\\w.]*\\.internal)\\.[\\w.*]+;", Pattern.MULTILINE);

    private static Path root() {
        Path here = Path.of("").toAbsolutePath();
        return Files.isDirectory(here.resolve("rpc-rdma-codec")) ? here : here.getParent();
    }

    private static Path mainJava(String module) {
        return root().resolve(module).resolve("src/main/java");
    }

    private static Set<String> packagesOf(String module) throws IOException {
        Set<String> packages = new TreeSet<>();
        Path base = mainJava(module);
        try (Stream<Path> files = Files.walk(base)) {
            files.filter(f -> f.toString().endsWith(".java") && !f.getFileName().toString().equals("module-info.java"))
                    .forEach(f ->
                    packages.add(base.relativize(f.getParent()).toString().replace('/', '.')));
        }
        return packages;
    }

    @Test
    void noModuleImportsAnotherModulesInternalPackages() throws IOException {
        List<String> violations = new ArrayList<>();
        int files = 0;
        for (String module : MODULES) {
            Set<String> own = packagesOf(module);
            List<Path> sources;
            try (Stream<Path> s = Files.walk(mainJava(module))) {
                sources = s.filter(f -> f.toString().endsWith(".java")).toList();
            }
            for (Path f : sources) {
                files++;
                Matcher m = INTERNAL_IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    if (!own.contains(m.group(1))) {
                        violations.add(root().relativize(f) + " imports " + m.group(1));
                    }
                }
            }
        }
        assertThat(files).as("sources read").isGreaterThan(300);
        assertThat(violations).isEmpty();
    }

    @Test
    void noPublicMemberOutsideInternalPackagesUsesAnInternalType() throws Exception {
        List<String> violations = new ArrayList<>();
        int types = 0;
        for (String module : MODULES) {
            Path classes = root().resolve(module).resolve("target/classes");
            if (module.equals("mount-tool") || !Files.isDirectory(classes)) {
                continue; // the CLI is not on this module's class path; its sources are checked above
            }
            List<Path> files;
            try (Stream<Path> s = Files.walk(classes)) {
                files = s.filter(f -> f.toString().endsWith(".class")
                        && !f.getFileName().toString().matches(".*\\$\\d.*")).toList(); // no anonymous classes
            }
            for (Path f : files) {
                String name = classes.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", "");
                if (name.contains(".internal.") || name.endsWith("package-info") || name.endsWith("module-info")) {
                    continue;
                }
                Class<?> c = Class.forName(name, false, getClass().getClassLoader());
                if (!Modifier.isPublic(c.getModifiers()) || !reachable(c)) {
                    continue;
                }
                types++;
                List<Executable> members = new ArrayList<>(List.of(c.getDeclaredMethods()));
                members.addAll(List.<Constructor<?>>of(c.getDeclaredConstructors()));
                for (Executable e : members) {
                    if (!exposed(e.getModifiers()) || e.isSynthetic()) {
                        continue;
                    }
                    List<Class<?>> used = new ArrayList<>(List.of(e.getParameterTypes()));
                    if (e instanceof Method m) {
                        used.add(m.getReturnType());
                    }
                    for (Class<?> t : used) {
                        if (internal(t)) {
                            violations.add(name + "." + e.getName() + " uses " + t.getName());
                        }
                    }
                }
                for (Field fd : c.getDeclaredFields()) {
                    if (exposed(fd.getModifiers()) && internal(fd.getType())) {
                        violations.add(name + "." + fd.getName() + " is a " + fd.getType().getName());
                    }
                }
            }
        }
        assertThat(types).as("public types read").isGreaterThan(100);
        assertThat(violations).isEmpty();
    }

    /**
     * Each shipped module's jar has a module name of its own (the {@code Automatic-Module-Name} its POM sets), and no
     * package is in two modules, so the jars work as automatic modules side by side.
     */
    @Test
    void eachModuleHasANameAndPackagesOfItsOwn() throws IOException {
        Set<String> names = new TreeSet<>();
        Set<String> packages = new TreeSet<>();
        for (String module : MODULES) {
            Matcher m = Pattern.compile("<automatic\\.module\\.name>([^<]+)</automatic\\.module\\.name>")
                    .matcher(Files.readString(root().resolve(module).resolve("pom.xml")));
            assertThat(m.find()).as(module + " sets automatic.module.name").isTrue();
            assertThat(m.group(1)).as(module).matches("[a-z][a-z0-9]*(\\.[a-z][a-z0-9]*)*");
            assertThat(names.add(m.group(1))).as(m.group(1) + " is one module's").isTrue();
            for (String p : packagesOf(module)) {
                assertThat(packages.add(p)).as(p + " is in one module only (" + module + ")").isTrue();
            }
        }
    }

    /** A public type whose enclosing types are public too. */
    private static boolean reachable(Class<?> c) {
        for (Class<?> e = c.getEnclosingClass(); e != null; e = e.getEnclosingClass()) {
            if (!Modifier.isPublic(e.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    private static boolean exposed(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static boolean internal(Class<?> t) {
        while (t.isArray()) {
            t = t.getComponentType();
        }
        return t.getName().startsWith("org.rpcrdma4j.") && t.getPackageName().contains(".internal");
    }
}
