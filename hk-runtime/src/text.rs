//! Text positions (core layer): the 1-based line and column of a byte offset in a text,
//! columns counted in characters, for every reader that reports where a text went wrong
//! (schema TOML, JSON and TOML dumps, the command line's own files).

/// The 1-based line and column of byte `offset` of `text`, the column counted in
/// characters; an offset inside a character or past the end is taken at the character
/// boundary before it. For many offsets of one text, make a [`LineIndex`] once.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    LineIndex::new(text).line_column(text, offset)
}

/// Where the lines of a text start, and how many UTF-8 continuation bytes lie before each
/// block of [`LineIndex::BLOCK`] bytes, made in one pass: the line of an offset is a binary
/// search and its column (in characters) at most one block scanned, so a text with any
/// number of problems on one line costs time linear in the text. It holds no borrow of
/// the text: each lookup takes the text it was made from.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    /// The offset where each line after the first starts.
    starts: Vec<usize>,
    /// Continuation bytes before block `k`, and in the whole text last (empty when the
    /// text is ASCII).
    wide: Vec<usize>,
}

impl LineIndex {
    /// The bytes of one block of the continuation-byte counts.
    pub const BLOCK: usize = 64;

    /// Indexes `text`.
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let starts = line_starts(bytes);
        let wide = if text.is_ascii() {
            Vec::new()
        } else {
            let mut n = 0;
            let mut wide: Vec<usize> = bytes
                .chunks(Self::BLOCK)
                .map(|c| {
                    let before = n;
                    n += continuation(c);
                    before
                })
                .collect();
            // The end of a text whose length is a whole number of blocks.
            wide.push(n);
            wide
        };
        LineIndex { starts, wide }
    }

    /// The 1-based line of byte `offset` (past the end: the last line).
    pub fn line(&self, offset: usize) -> usize {
        // Lines that start at or before the offset, plus the first.
        self.starts.partition_point(|&s| s <= offset) + 1
    }

    /// The 1-based line and column of byte `offset` of `text` (the text the index was made
    /// from), the column counted in characters; an offset inside a character or past the
    /// end is taken at the character boundary before it.
    pub fn line_column(&self, text: &str, offset: usize) -> (usize, usize) {
        let mut at = offset.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let line = self.line(at);
        let start = if line == 1 { 0 } else { self.starts[line - 2] };
        let wide = self
            .continuation_before(text, at)
            .saturating_sub(self.continuation_before(text, start));
        let chars = (at - start).saturating_sub(wide);
        (line, chars + 1)
    }

    /// Continuation bytes in the text before `at`.
    fn continuation_before(&self, text: &str, at: usize) -> usize {
        let Some(&before) = self.wide.get(at / Self::BLOCK) else {
            return 0;
        };
        let from = at / Self::BLOCK * Self::BLOCK;
        before + continuation(text.as_bytes().get(from..at).unwrap_or_default())
    }
}

/// Offsets just after each `\n` of `bytes`.
fn line_starts(bytes: &[u8]) -> Vec<usize> {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect()
}

/// The UTF-8 continuation bytes (`10xxxxxx`) of `bytes`.
fn continuation(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| **b & 0xC0 == 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::LineIndex;

    /// Line and column by counting from the start, for comparison.
    fn slow(text: &str, offset: usize) -> (usize, usize) {
        let mut at = offset.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let before = &text[..at];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, column)
    }

    #[test]
    fn lines_and_columns_count_characters_at_every_offset() {
        let mut t = String::from("ab\né\n\nx = \"ü€𝄞\" y\n");
        // Lines longer than a block, with wide characters on both sides of block ends.
        for i in 0..200 {
            t.push(if i % 7 == 0 { 'é' } else { 'a' });
            if i % 90 == 89 {
                t.push('\n');
            }
        }
        let ix = LineIndex::new(&t);
        for offset in 0..=t.len() + 3 {
            assert_eq!(
                ix.line_column(&t, offset),
                slow(&t, offset),
                "offset {offset}"
            );
        }
        let a = "a\nbc\n";
        let ascii = LineIndex::new(a);
        assert_eq!(ascii.line_column(a, 0), (1, 1));
        assert_eq!(ascii.line_column(a, 3), (2, 2));
        assert_eq!(ascii.line_column(a, 99), (3, 1));
        assert_eq!(LineIndex::new("").line_column("", 5), (1, 1));
    }

    #[test]
    fn one_offset_without_an_index() {
        let t = "a = 1\nbé = x\n";
        assert_eq!(super::line_column(t, 0), (1, 1));
        assert_eq!(super::line_column(t, 6), (2, 1));
        assert_eq!(super::line_column(t, 9), (2, 3));
        assert_eq!(super::line_column(t, 1000).0, 3);
    }
}
