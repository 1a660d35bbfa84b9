//! HTML to a tree, fast: a tokenizer that scans bytes (memchr over text,
//! scripts and attribute values) and feeds html5ever's own tree builder, so
//! the tree is the one html5ever builds. The tokenizer covers what real
//! pages hold; on anything else (a NUL byte, a tag cut off by the end of the
//! page, `<plaintext>`, an unusual doctype) it gives up and the page is
//! parsed again by html5ever's tokenizer, so every page gets the same tree
//! either way (`parse_tests` checks both against each other).
//!
//! html5ever's tokenizer takes one character at a time through a queue of
//! buffers and copies text a character or a line at a time; it was most of
//! the parse's cost, and the parse most of the extraction's.

use crate::tree::{Html, Sink};
use html5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{ns, Attribute, LocalName, QualName};

/// The page's tree (as html5ever's own tokenizer and tree builder make it).
pub fn document(body: &str) -> Html {
    fast(body).unwrap_or_else(|| Html::parse_document(body))
}

/// `body` with CR LF and lone CR as LF (`first`: the first CR), in one
/// pass from CR to CR.
fn newlines_normalized(body: &str, first: usize) -> String {
    let b = body.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut run = 0;
    let mut cr = Some(first);
    while let Some(at) = cr {
        out.push_str(&body[run..at]);
        out.push('\n');
        run = if b.get(at + 1) == Some(&b'\n') {
            at + 2
        } else {
            at + 1
        };
        cr = memchr::memchr(b'\r', &b[run..]).map(|i| run + i);
    }
    out.push_str(&body[run..]);
    out
}

#[cfg(test)]
#[test]
fn newlines_are_normalized_as_html_says() {
    for text in [
        "a\r\nb",
        "\r",
        "\r\r\n\n",
        "x\ry\r\n",
        "é\r\nü\r",
        "\n\r\n\r\r",
    ] {
        let first = text.find('\r').unwrap();
        let expected = text.replace("\r\n", "\n").replace('\r', "\n");
        assert_eq!(newlines_normalized(text, first), expected, "{text:?}");
    }
}

/// The tree by the fast tokenizer, or `None` where it gives up.
pub fn fast(body: &str) -> Option<Html> {
    // Input preprocessing: a leading byte order mark is dropped (html5ever's
    // `discard_bom`), CR LF and lone CR become LF.
    let body = body.strip_prefix('\u{feff}').unwrap_or(body);
    if memchr::memchr(0, body.as_bytes()).is_some() {
        return None;
    }
    let normalized;
    let src: &str = if let Some(first) = memchr::memchr(b'\r', body.as_bytes()) {
        normalized = newlines_normalized(body, first);
        &normalized
    } else {
        body
    };
    if u32::try_from(src.len()).is_err() {
        return None;
    }
    // The tree's nodes in one allocation instead of a copy at each
    // doubling: about one element or text per '<' (the end tags that do not
    // make one pay for the texts between tags).
    let nodes = memchr::memchr_iter(b'<', src.as_bytes()).count() + 16;
    let sink = Sink::new(Html::with_capacity(nodes));
    let t = Tokenizer {
        src,
        b: src.as_bytes(),
        input: StrTendril::from_slice(src),
        tb: TreeBuilder::new(sink, TreeBuilderOpts::default()),
        attrs: Default::default(),
        names: std::cell::RefCell::new(vec![None; NAME_SLOTS]),
    };
    t.run()?;
    let _ = t.send(Token::EOFToken);
    t.tb.end();
    let TreeBuilder { sink, .. } = t.tb;
    Some(html5ever::tree_builder::TreeSink::finish(sink))
}

type Builder = TreeBuilder<crate::tree::NodeId, Sink>;

struct Tokenizer<'a> {
    src: &'a str,
    b: &'a [u8],
    /// `src` as one tendril: text and attribute values are slices of it.
    input: StrTendril,
    tb: Builder,
    /// The attributes of the tag being read (see `attributes`).
    attrs: std::cell::Cell<Vec<Attribute>>,
    /// Names met so far, by spelling (see `name`).
    names: std::cell::RefCell<Vec<Option<(&'a str, LocalName)>>>,
}

/// Slots of the name cache (`Tokenizer::name`).
const NAME_SLOTS: usize = 256;

/// What the tree builder asks the tokenizer to do after a start tag.
enum Next {
    Data,
    Raw(RawKind, LocalName),
}

fn is_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b' ')
}

/// A character reference's result (html5ever's `CharRefTokenizer`).
enum CharRef {
    /// Not a reference: the `&` is text.
    Literal,
    /// The characters it stands for and where the input resumes.
    Chars([char; 2], usize, usize),
}

impl<'a> Tokenizer<'a> {
    fn send(&self, token: Token) -> TokenSinkResult<crate::tree::NodeId> {
        self.tb.process_token(token, 1)
    }

    fn slice(&self, start: usize, end: usize) -> StrTendril {
        // Both fit in u32: the length was checked.
        self.input.subtendril(start as u32, (end - start) as u32)
    }

    fn text(&self, start: usize, end: usize) {
        if end > start {
            let _ = self.send(Token::CharacterTokens(self.slice(start, end)));
        }
    }

    fn chars(&self, cs: &[char]) {
        let mut t = StrTendril::new();
        for &c in cs {
            t.push_char(c);
        }
        let _ = self.send(Token::CharacterTokens(t));
    }

    /// Text with character references, as a run of tokens (data, RCDATA).
    fn text_with_refs(&self, start: usize, end: usize) {
        let mut run = start;
        let mut at = start;
        while let Some(i) = memchr::memchr(b'&', &self.b[at..end]).map(|i| at + i) {
            match self.char_ref(i, end, false) {
                CharRef::Literal => at = i + 1,
                CharRef::Chars(cs, n, resume) => {
                    self.text(run, i);
                    self.chars(&cs[..n]);
                    run = resume;
                    at = resume;
                }
            }
        }
        self.text(run, end);
    }

    /// An attribute's value with its character references decoded.
    fn value(&self, start: usize, end: usize) -> StrTendril {
        let Some(first) = memchr::memchr(b'&', &self.b[start..end]).map(|i| start + i) else {
            return self.slice(start, end);
        };
        let mut out = String::with_capacity(end - start);
        let mut run = start;
        let mut at = first;
        loop {
            match self.char_ref(at, end, true) {
                CharRef::Literal => at += 1,
                CharRef::Chars(cs, n, resume) => {
                    out.push_str(&self.src[run..at]);
                    out.extend(&cs[..n]);
                    run = resume;
                    at = resume;
                }
            }
            match memchr::memchr(b'&', &self.b[at..end]) {
                Some(i) => at += i,
                None => break,
            }
        }
        out.push_str(&self.src[run..end]);
        StrTendril::from_slice(&out)
    }

    /// The character reference at `amp` (an `&`), read no further than `end`.
    fn char_ref(&self, amp: usize, end: usize, in_attribute: bool) -> CharRef {
        let b = &self.b[..end];
        let Some(&first) = b.get(amp + 1) else {
            return CharRef::Literal;
        };
        if first == b'#' {
            return self.numeric_ref(amp, end);
        }
        if !first.is_ascii_alphanumeric() {
            return CharRef::Literal;
        }
        // The longest name in the table (which also holds every prefix of
        // every name, marked (0, 0)).
        let start = amp + 1;
        let mut matched: Option<(usize, (u32, u32))> = None;
        // A name closed by ';' ("&quot;") is the longest match when it is
        // one: one lookup instead of one per character.
        let run = start
            + b[start..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric())
                .count();
        if b.get(run) == Some(&b';') {
            matched = NAMED_ENTITIES
                .get(&self.src[start..=run])
                .filter(|m| m.0 != 0)
                .map(|&m| (run + 1, m));
        }
        if matched.is_none() {
            let mut j = start;
            while j < b.len() && b[j].is_ascii() {
                match NAMED_ENTITIES.get(&self.src[start..=j]) {
                    Some(&m) => {
                        if m.0 != 0 {
                            matched = Some((j + 1, m));
                        }
                    }
                    None => break,
                }
                j += 1;
            }
        }
        let Some((resume, (c1, c2))) = matched else {
            return CharRef::Literal;
        };
        let last = b[resume - 1];
        let next = b.get(resume).copied();
        if in_attribute
            && last != b';'
            && next.is_some_and(|c| c == b'=' || c.is_ascii_alphanumeric())
        {
            return CharRef::Literal;
        }
        let c1 = char::from_u32(c1).unwrap_or('\u{fffd}');
        match char::from_u32(c2) {
            Some(c2) if c2 != '\0' => CharRef::Chars([c1, c2], 2, resume),
            _ => CharRef::Chars([c1, '\0'], 1, resume),
        }
    }

    fn numeric_ref(&self, amp: usize, end: usize) -> CharRef {
        let b = &self.b[..end];
        let mut j = amp + 2;
        let base = match b.get(j) {
            Some(b'x' | b'X') => {
                j += 1;
                16
            }
            _ => 10,
        };
        let digits = j;
        let mut num: u32 = 0;
        let mut too_big = false;
        while let Some(d) = b.get(j).and_then(|&c| (c as char).to_digit(base)) {
            num = num.wrapping_mul(base);
            if num > 0x10FFFF {
                too_big = true;
            }
            num = num.wrapping_add(d);
            j += 1;
        }
        if j == digits {
            return CharRef::Literal;
        }
        if b.get(j) == Some(&b';') {
            j += 1;
        }
        let conv = |n: u32| char::from_u32(n).unwrap_or('\u{fffd}');
        let c = match num {
            n if n > 0x10FFFF || too_big => '\u{fffd}',
            0x00 | 0xD800..=0xDFFF => '\u{fffd}',
            0x80..=0x9F => C1_REPLACEMENTS[(num - 0x80) as usize].unwrap_or_else(|| conv(num)),
            n => conv(n),
        };
        CharRef::Chars([c, '\0'], 1, j)
    }

    /// The whole input in the data state, with the raw text elements the
    /// tree builder switches to.
    fn run(&self) -> Option<()> {
        let b = self.b;
        let mut pos = 0;
        let mut run = 0; // start of the pending text
        let mut has_ref = false;
        loop {
            let Some(i) = memchr::memchr2(b'<', b'&', &b[pos..]).map(|i| pos + i) else {
                self.flush(run, b.len(), has_ref);
                return Some(());
            };
            if b[i] == b'&' {
                has_ref = true;
                pos = i + 1;
                continue;
            }
            // A '<' that opens no markup is text.
            let next = *b.get(i + 1)?;
            let opens = next.is_ascii_alphabetic() || matches!(next, b'!' | b'/' | b'?');
            if !opens {
                pos = i + 1;
                continue;
            }
            self.flush(run, i, has_ref);
            has_ref = false;
            let (after, then) = match next {
                b'!' => (self.declaration(i)?, Next::Data),
                b'?' => (self.bogus_comment(i + 1)?, Next::Data),
                b'/' => match *b.get(i + 2)? {
                    c if c.is_ascii_alphabetic() => (self.tag(TagKind::EndTag, i + 2)?, Next::Data),
                    b'>' => (i + 3, Next::Data),
                    _ => (self.bogus_comment(i + 2)?, Next::Data),
                },
                _ => self.start_tag(i + 1)?,
            };
            pos = after;
            if let Next::Raw(kind, name) = then {
                pos = self.raw(kind, name, pos)?;
            }
            run = pos;
        }
    }

    fn flush(&self, start: usize, end: usize, has_ref: bool) {
        if has_ref {
            self.text_with_refs(start, end);
        } else {
            self.text(start, end);
        }
    }

    fn start_tag(&self, name_start: usize) -> Option<(usize, Next)> {
        let (after, name, result) = self.tag_token(TagKind::StartTag, name_start)?;
        let next = match result {
            TokenSinkResult::Continue | TokenSinkResult::Script(_) => Next::Data,
            TokenSinkResult::Plaintext => return None,
            TokenSinkResult::RawData(kind) => Next::Raw(kind, name),
        };
        Some((after, next))
    }

    fn tag(&self, kind: TagKind, name_start: usize) -> Option<usize> {
        self.tag_token(kind, name_start).map(|(after, _, _)| after)
    }

    /// A tag from its name to its `>`, sent to the tree builder; where the
    /// input resumes, the tag's name and the builder's answer.
    fn tag_token(
        &self,
        kind: TagKind,
        name_start: usize,
    ) -> Option<(usize, LocalName, TokenSinkResult<crate::tree::NodeId>)> {
        let b = self.b;
        let mut j = name_start;
        while j < b.len() && !is_ws(b[j]) && b[j] != b'/' && b[j] != b'>' {
            j += 1;
        }
        let name = self.name(name_start, j);
        self.attributes(kind, name, j)
    }

    /// The tag or attribute name at `start..end`, lowercased and interned.
    /// A page repeats a few dozen names thousands of times: each is
    /// interned once and then found in a small cache by its spelling.
    fn name(&self, start: usize, end: usize) -> LocalName {
        let raw = &self.src[start..end];
        let b = raw.as_bytes();
        let slot = match b {
            [] => 0,
            [first, .., last] => {
                (b.len() * 31
                    + usize::from(*first) * 7
                    + usize::from(*last) * 3
                    + usize::from(b[b.len() / 2]))
                    % NAME_SLOTS
            }
            [only] => usize::from(*only) % NAME_SLOTS,
        };
        let mut names = self.names.borrow_mut();
        match &names[slot] {
            Some((spelling, name)) if crate::text::same(spelling.as_bytes(), b) => name.clone(),
            _ => {
                let name = lower_name(raw);
                names[slot] = Some((raw, name.clone()));
                name
            }
        }
    }

    /// The attributes of a tag whose name ends at `j`, then the tag sent.
    fn attributes(
        &self,
        kind: TagKind,
        name: LocalName,
        mut j: usize,
    ) -> Option<(usize, LocalName, TokenSinkResult<crate::tree::NodeId>)> {
        let b = self.b;
        // Gathered in a vector kept between tags, then copied out at their
        // number: one allocation per tag instead of one per doubling.
        let mut attrs = self.attrs.take();
        attrs.clear();
        let mut self_closing = false;
        let push = |attrs: &mut Vec<Attribute>, name: LocalName, value: StrTendril| {
            // A repeated attribute is dropped (the first one stays).
            if !attrs.iter().any(|a| a.name.local == name) {
                attrs.push(Attribute {
                    name: QualName::new(None, ns!(), name),
                    value,
                });
            }
        };
        loop {
            // Before an attribute's name.
            while j < b.len() && is_ws(b[j]) {
                j += 1;
            }
            match *b.get(j)? {
                b'>' => {
                    j += 1;
                    break;
                }
                b'/' => {
                    if *b.get(j + 1)? == b'>' {
                        self_closing = true;
                        j += 2;
                        break;
                    }
                    j += 1;
                    continue;
                }
                _ => {}
            }
            // The name: its first character is taken whatever it is (even
            // '='), then up to white space, '/', '=' or '>'.
            let name_start = j;
            j += char_len(b[j]);
            while j < b.len() && !is_ws(b[j]) && !matches!(b[j], b'/' | b'=' | b'>') {
                j += 1;
            }
            let attr = self.name(name_start, j);
            while j < b.len() && is_ws(b[j]) {
                j += 1;
            }
            if *b.get(j)? != b'=' {
                // No value; '/' and '>' are read by the loop, anything else
                // starts the next attribute.
                push(&mut attrs, attr, StrTendril::new());
                continue;
            }
            j += 1;
            while j < b.len() && is_ws(b[j]) {
                j += 1;
            }
            match *b.get(j)? {
                q @ (b'"' | b'\'') => {
                    let end = j + 1 + memchr::memchr(q, &b[j + 1..])?;
                    push(&mut attrs, attr, self.value(j + 1, end));
                    j = end + 1;
                }
                b'>' => {
                    push(&mut attrs, attr, StrTendril::new());
                    j += 1;
                    break;
                }
                _ => {
                    let start = j;
                    while j < b.len() && !is_ws(b[j]) && b[j] != b'>' {
                        j += 1;
                    }
                    if j == b.len() {
                        return None;
                    }
                    push(&mut attrs, attr, self.value(start, j));
                }
            }
        }
        let token = Token::TagToken(Tag {
            kind,
            name: name.clone(),
            self_closing,
            attrs: attrs.drain(..).collect(),
        });
        self.attrs.set(attrs);
        let result = self.send(token);
        Some((j, name, result))
    }

    /// `<!`: a comment, a doctype, a CDATA section or a bogus comment.
    fn declaration(&self, lt: usize) -> Option<usize> {
        let b = self.b;
        let rest = &b[lt + 2..];
        if rest.starts_with(b"--") {
            return self.comment(lt + 4);
        }
        if rest.len() >= 7 && rest[..7].eq_ignore_ascii_case(b"doctype") {
            return self.doctype(lt + 9);
        }
        // A CDATA section is one in foreign content (SVG, MathML) only.
        if rest.starts_with(b"[CDATA[")
            && self
                .tb
                .adjusted_current_node_present_but_not_in_html_namespace()
        {
            let start = lt + 9;
            let end = start + memchr::memmem::find(&b[start..], b"]]>")?;
            self.text(start, end);
            return Some(end + 3);
        }
        self.bogus_comment(lt + 2)
    }

    /// A comment's text from `start` (after `<!--`) to `-->` or `--!>`.
    fn comment(&self, start: usize) -> Option<usize> {
        let b = self.b;
        let (text_end, after) = if b.get(start) == Some(&b'>') {
            (start, start + 1)
        } else if b[start..].starts_with(b"->") {
            (start, start + 2)
        } else {
            let mut at = start;
            loop {
                let k = at + memchr::memmem::find(&b[at..], b"--")?;
                match b.get(k + 2) {
                    Some(b'>') => break (k, k + 3),
                    Some(b'!') if b.get(k + 3) == Some(&b'>') => break (k, k + 4),
                    Some(_) => at = k + 1,
                    None => return None,
                }
            }
        };
        let _ = self.send(Token::CommentToken(self.slice(start, text_end)));
        Some(after)
    }

    /// A bogus comment: its text runs from `start` to the next `>`.
    fn bogus_comment(&self, start: usize) -> Option<usize> {
        let end = start + memchr::memchr(b'>', &self.b[start..])?;
        let _ = self.send(Token::CommentToken(self.slice(start, end)));
        Some(end + 1)
    }

    /// `<!DOCTYPE` followed by a name and at most a public and a system
    /// identifier in quotes; anything else is left to html5ever.
    fn doctype(&self, mut j: usize) -> Option<usize> {
        let b = self.b;
        let ws = |j: &mut usize| {
            let s = *j;
            while *j < b.len() && is_ws(b[*j]) {
                *j += 1;
            }
            *j > s
        };
        if !ws(&mut j) {
            return None;
        }
        let name_start = j;
        while j < b.len() && !is_ws(b[j]) && b[j] != b'>' {
            j += 1;
        }
        if j == name_start {
            return None;
        }
        let name = StrTendril::from_slice(&self.src[name_start..j].to_ascii_lowercase());
        ws(&mut j);
        let quoted = |j: &mut usize| -> Option<StrTendril> {
            let q = *b.get(*j)?;
            if q != b'"' && q != b'\'' {
                return None;
            }
            let end = *j + 1 + memchr::memchr(q, &b[*j + 1..])?;
            if memchr::memchr(b'>', &b[*j + 1..end]).is_some() {
                return None;
            }
            let id = self.slice(*j + 1, end);
            *j = end + 1;
            Some(id)
        };
        let (mut public_id, mut system_id) = (None, None);
        if *b.get(j)? != b'>' {
            let keyword = b.get(j..j + 6)?;
            j += 6;
            if keyword.eq_ignore_ascii_case(b"public") {
                if !ws(&mut j) {
                    return None;
                }
                public_id = Some(quoted(&mut j)?);
                ws(&mut j);
                if *b.get(j)? != b'>' {
                    system_id = Some(quoted(&mut j)?);
                    ws(&mut j);
                }
            } else if keyword.eq_ignore_ascii_case(b"system") {
                if !ws(&mut j) {
                    return None;
                }
                system_id = Some(quoted(&mut j)?);
                ws(&mut j);
            } else {
                return None;
            }
            if *b.get(j)? != b'>' {
                return None;
            }
        }
        let _ = self.send(Token::DoctypeToken(Doctype {
            name: Some(name),
            public_id,
            system_id,
            force_quirks: false,
        }));
        Some(j + 1)
    }

    /// The text of a raw text element (script, style, title…) up to its
    /// end tag, then the end tag; where the input resumes.
    fn raw(&self, kind: RawKind, name: LocalName, from: usize) -> Option<usize> {
        let end = match kind {
            RawKind::ScriptData => self.script_end(from),
            RawKind::Rcdata | RawKind::Rawtext => self.raw_end(&name, from),
            RawKind::ScriptDataEscaped(_) => return None,
        };
        let Some(end) = end else {
            // No end tag: the rest of the page is the element's text.
            if matches!(kind, RawKind::Rcdata) {
                self.text_with_refs(from, self.b.len());
            } else {
                self.text(from, self.b.len());
            }
            return Some(self.b.len());
        };
        if matches!(kind, RawKind::Rcdata) {
            self.text_with_refs(from, end);
        } else {
            self.text(from, end);
        }
        let name_end = end + 2 + name.len();
        self.attributes(TagKind::EndTag, name, name_end)
            .map(|(after, _, _)| after)
    }

    /// Whether `</name` at `lt` is followed by white space, '/' or '>'.
    fn end_tag_at(&self, lt: usize, name: &str) -> bool {
        let b = self.b;
        let n = name.len();
        b.get(lt + 1) == Some(&b'/')
            && b.get(lt + 2..lt + 2 + n)
                .is_some_and(|s| s.eq_ignore_ascii_case(name.as_bytes()))
            && b.get(lt + 2 + n)
                .is_some_and(|&c| is_ws(c) || c == b'/' || c == b'>')
    }

    /// The `<` of the end tag that closes RCDATA or RAWTEXT text.
    fn raw_end(&self, name: &str, from: usize) -> Option<usize> {
        let mut at = from;
        loop {
            let lt = at + memchr::memmem::find(&self.b[at..], b"</")?;
            if self.end_tag_at(lt, name) {
                return Some(lt);
            }
            at = lt + 1;
        }
    }

    /// The `<` of the `</script` that ends a script's text: the script data
    /// states of the tokenizer, with `<!--` and `<script>` inside the text
    /// (escaped and double-escaped text, where `</script>` does not end).
    fn script_end(&self, from: usize) -> Option<usize> {
        let b = self.b;
        let mut at = from;
        // Plain script data: only "</script" and "<!--" matter.
        loop {
            let lt = at + memchr::memchr(b'<', &b[at..])?;
            if self.end_tag_at(lt, "script") {
                return Some(lt);
            }
            if b[lt + 1..].starts_with(b"!--") {
                // Escaped, right after the dashes.
                match self.escaped(lt + 4)? {
                    Escape::End(lt) => return Some(lt),
                    Escape::Back(resume) => at = resume,
                }
                continue;
            }
            at = lt + 1;
        }
    }

    /// The escaped script data states from `i` (just after `<!--`, in the
    /// "escaped dash dash" state), byte by byte: rare text, kept exact.
    fn escaped(&self, mut i: usize) -> Option<Escape> {
        // The escaped states and the double-escaped ones differ only in
        // what a '<' may start; both count the dashes seen last (two and a
        // '>' go back to plain script data).
        let b = self.b;
        let mut double = false;
        let mut dashes = 2;
        while i < b.len() {
            match b[i] {
                b'-' => dashes = (dashes + 1).min(2),
                b'>' if dashes == 2 => return Some(Escape::Back(i + 1)),
                b'<' => {
                    dashes = 0;
                    if !double {
                        if self.end_tag_at(i, "script") {
                            return Some(Escape::End(i));
                        }
                        if self.script_word_at(i + 1) {
                            // `<script` + white space, '/' or '>'.
                            double = true;
                            i += 8;
                            continue;
                        }
                    } else if b.get(i + 1) == Some(&b'/') && self.script_word_at(i + 2) {
                        double = false;
                        i += 9;
                        continue;
                    }
                }
                _ => dashes = 0,
            }
            i += 1;
        }
        None
    }

    /// Whether `script` (any case) followed by white space, '/' or '>'
    /// starts at `i`.
    fn script_word_at(&self, i: usize) -> bool {
        let b = self.b;
        b.get(i..i + 6)
            .is_some_and(|s| s.eq_ignore_ascii_case(b"script"))
            && b.get(i + 6)
                .is_some_and(|&c| is_ws(c) || c == b'/' || c == b'>')
    }
}

enum Escape {
    /// The script ends at this `<`.
    End(usize),
    /// Back to plain script data here.
    Back(usize),
}

/// The length of the UTF-8 sequence a leading byte starts.
fn char_len(b: u8) -> usize {
    match b {
        0..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

/// A tag or attribute name, ASCII letters lowercased.
fn lower_name(s: &str) -> LocalName {
    if s.bytes().any(|c| c.is_ascii_uppercase()) {
        LocalName::from(s.to_ascii_lowercase())
    } else {
        LocalName::from(s)
    }
}

pub use crate::tree::outline;
