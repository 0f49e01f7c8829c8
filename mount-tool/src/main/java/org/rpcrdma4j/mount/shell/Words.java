package org.rpcrdma4j.mount.shell;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a shell line into words: blanks separate words, 'single' and "double" quotes keep blanks, a backslash
 * escapes the next character (outside single quotes). A {@code #} at the start of a word begins a comment.
 */
public final class Words {
    private Words() {
    }

    /** The words of {@code line}; throws {@link IllegalArgumentException} for an unclosed quote. */
    public static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote == '\'') {
                if (c == '\'') {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\\' && i + 1 < line.length()) {
                word.append(line.charAt(++i));
                inWord = true;
            } else if (quote == '"') {
                if (c == '"') {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else if (c == '#' && !inWord) {
                break;
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("unclosed " + quote + " quote");
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}
