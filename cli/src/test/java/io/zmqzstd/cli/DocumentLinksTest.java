package io.zmqzstd.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every relative link of the repository's Markdown files leads somewhere: the file or directory
 * exists, and an anchor ({@code cli/README.md#statistics}) names a heading of the target as GitHub
 * makes its id, or an explicit {@code <a id>}. A renamed heading or a moved file fails here, not in
 * a reader's browser. Reads text only. (benchmark's DocumentedCommandsTest checks that the files
 * its three documents link to exist, not anchors, and no other document.)
 */
class DocumentLinksTest {

    /** The repository root, seen from this module's directory (Maven runs tests there). */
    private static final Path ROOT = Path.of("..");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    /** A link with a scheme ({@code https:}, {@code mailto:}) leaves the repository. */
    private static final Pattern ABSOLUTE = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:.*");
    private static final Pattern HEADING = Pattern.compile("#{1,6}\\s+(.*?)(?:\\s+#+)?\\s*");
    private static final Pattern EXPLICIT_ANCHOR = Pattern.compile("<a (?:name|id)=\"([^\"]+)\"");

    @Test
    void shouldResolveEveryRelativeLinkAndAnchor() throws IOException {
        List<Path> documents = markdownFiles();
        assertTrue(documents.contains(ROOT.resolve("README.md")) && documents.contains(ROOT.resolve("cli/README.md")),
                () -> "the READMEs were not found from " + ROOT.toAbsolutePath() + ": " + documents);
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> defects = new ArrayList<>();
        int links = 0;
        for (Path doc : documents) {
            List<String> lines = outsideFences(doc);
            for (int i = 0; i < lines.size(); i++) {
                Matcher link = LINK.matcher(lines.get(i));
                while (link.find()) {
                    String target = link.group(1);
                    if (ABSOLUTE.matcher(target).matches()) {
                        continue;
                    }
                    links++;
                    String where = ROOT.relativize(doc) + ":" + (i + 1) + ": (" + target + ")";
                    int hash = target.indexOf('#');
                    String file = hash < 0 ? target : target.substring(0, hash);
                    Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
                    if (!Files.exists(resolved)) {
                        defects.add(where + " no such file");
                    } else if (hash >= 0 && !anchors.computeIfAbsent(resolved, DocumentLinksTest::anchors)
                            .contains(target.substring(hash + 1))) {
                        defects.add(where + " no heading or <a id> with that anchor in " + ROOT.relativize(resolved));
                    }
                }
            }
        }
        assertTrue(links > 100, "too few links found to be checking anything: " + links);
        assertEquals(List.of(), defects);
    }

    /** The anchor rule the link check relies on, on headings of this repository's kinds. */
    @Test
    void shouldMakeAnchorsAsGitHubDoes() {
        assertEquals("send--standard-input--compressed-messages", slug("`send` – standard input → compressed messages"));
        assertEquals("encryption-curve", slug("Encryption (CURVE)"));
        assertEquals("what--prof-gc-counts", slug("What `-prof gc` counts"));
        assertEquals("the-compression-bound-what-one-compressing-thread-allows",
                slug("The compression bound: what one compressing thread allows"));
        assertFalse(anchors(ROOT.resolve("cli/README.md")).contains("Statistics"), "anchors are lower case");
        assertTrue(anchors(ROOT.resolve("cli/README.md")).contains("statistics"));
    }

    /** GitHub's id for a heading: lower case, punctuation dropped, each space a hyphen. */
    static String slug(String heading) {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_ -]", "").replace(' ', '-');
    }

    /** The anchors of a Markdown file; a repeated heading's later ids get -1, -2, … as on GitHub. */
    private static Set<String> anchors(Path markdown) {
        if (!markdown.getFileName().toString().endsWith(".md")) {
            return Set.of(); // an anchor into anything else cannot be checked: a defect
        }
        Map<String, Integer> seen = new HashMap<>();
        Set<String> anchors = new HashSet<>();
        for (String line : outsideFences(markdown)) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(1));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
            Matcher explicit = EXPLICIT_ANCHOR.matcher(line);
            while (explicit.find()) {
                anchors.add(explicit.group(1));
            }
        }
        return anchors;
    }

    /** The lines of a Markdown file with the fenced code blocks blanked (their text is not Markdown). */
    private static List<String> outsideFences(Path markdown) {
        List<String> lines;
        try {
            lines = new ArrayList<>(Files.readAllLines(markdown, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            boolean fence = lines.get(i).stripLeading().startsWith("```");
            if (fence || fenced) {
                lines.set(i, "");
            }
            fenced ^= fence;
        }
        return lines;
    }

    /** Every Markdown file of the repository outside build output and hidden directories. */
    private static List<Path> markdownFiles() throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(ROOT, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String name = dir.getFileName().toString();
                boolean skipped = !dir.equals(ROOT) && (name.equals("target") || name.startsWith("."));
                return skipped ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (file.getFileName().toString().endsWith(".md")) {
                    found.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        found.sort(null);
        return found;
    }
}
