//! The fast tokenizer against html5ever's own: the same tree for markup
//! that exercises every state it covers, and for random tag soup; where it
//! falls back, it says so.

use crate::parse::{fast, outline};
use crate::tree::Html;

/// The fast tree is html5ever's tree; `covered`: it did not fall back.
fn same_tree(html: &str, covered: bool) {
    let reference = outline(&Html::parse_document(html));
    match fast(html) {
        Some(tree) => assert_eq!(outline(&tree), reference, "for {html:?}"),
        None => assert!(!covered, "fell back on {html:?}"),
    }
}

#[test]
fn markup_of_every_covered_state_builds_html5evers_tree() {
    for html in [
        "<!DOCTYPE html><html lang=en><head><title>A &amp; B &lt;x&gt;</title></head><body><p>Hi</p></body></html>",
        "<!doctype HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\" \"http://www.w3.org/TR/html4/loose.dtd\"><table><tr><td>x</table><p>quirks",
        "<!DOCTYPE html SYSTEM 'about:legacy-compat'><p>a",
        "<DIV CLASS=\"A\" id='b' data-x=1 hidden data-x=2 =odd a\"b c<d>text</DIV>",
        "<a href=\"/p?a=1&amp;b=2&copy=3&notit;&amp\">&notit; &notin; &copy &#65;&#x42;&#X43 &#0; &#x80; &#x9f; &#xD800; &#99999999999; &# &#x; &bogus; &</a>",
        "<input value=\"&ampx\" title='&amp=' alt=&lt;b&gt; data-a=&quot;>",
        "<p>1 < 2 <3 <- <! <!x> <? pi ?> </ > </3> </> x</p>",
        "<!-- a --><!----><!---><!--><!-- a -- b --!><!-- x --->y<!--a--!-->z<!-- <!-- -->",
        "<script>if (a < b && c > d) {}</script><script type=x>var s = '</scr' + 'ipt>';</script >",
        "<script><!-- document.write('<script>x</script>'); --></script><p>after",
        "<script><!-- x --></script><script><!--<script></script>--></script><p>a</p>",
        "<script><!-- <script> </script> </script> --> </script><p>b",
        "<style>p > a { color: red } </styles> </style ><textarea>\n&lt;b&gt;</textarea><pre>\nx</pre>",
        "<title>t</title foo=bar><iframe><p>not a tag</p></iframe><noscript><img src=x></noscript><xmp><b></xmp>",
        "<svg viewBox='0 0 1 1'><path d='M0 0'/><style>a{}</style><![CDATA[ x < y ]]><foreignObject><p>in</p></foreignObject></svg><![CDATA[bogus]]>",
        "<math><mi>x</mi><annotation-xml encoding='text/html'><b>t</b></annotation-xml></math>",
        "<br/><img src=a.png /><div/ class=x><a/b>c</a>",
        "<table><tr><td>1<td>2</tr>stray<tr><th>h</table><ul><li>a<li>b</ul>",
        "<p>line\r\nbreaks\rand\nmore</p>",
        "\u{feff}<p>bom</p>",
        "<p>é ü 中文 <span class=\"é\" é=\"ü\">x</span></p>",
        "<b><i>mis</b>nested</i><p><div>x</p></div>",
        "<template><p>t</p></template><select><option>a<option>b</select>",
    ] {
        same_tree(html, true);
    }
}

#[test]
fn what_it_does_not_cover_falls_back() {
    for html in [
        "<p>a\0b</p>",
        "<p>cut <a href=\"x",
        "<p>cut <",
        "<plaintext><p>x",
        "<!DOCTYPE>",
        "<!DOCTYPE html bogus>",
        "<!-- never closed",
    ] {
        assert!(fast(html).is_none(), "covered {html:?}");
        same_tree(html, false);
    }
}

/// Random tag soup from fragments that meet at every state boundary.
#[test]
fn random_tag_soup_builds_html5evers_tree() {
    const PARTS: &[&str] = &[
        "<",
        "</",
        ">",
        "/>",
        "<!--",
        "-->",
        "--!>",
        "-",
        "!",
        "<!",
        "<?",
        "?>",
        "<!DOCTYPE html>",
        "&",
        "&amp",
        "&amp;",
        "&#",
        "&#x41;",
        "&#65",
        "&notin",
        "&not",
        ";",
        "=",
        "\"",
        "'",
        " ",
        "\n",
        "\t",
        "a",
        "B",
        "p",
        "div",
        "script",
        "style",
        "title",
        "textarea",
        "table",
        "tr",
        "td",
        "svg",
        "math",
        "select",
        "option",
        "pre",
        "<p>",
        "</p>",
        "<script>",
        "</script>",
        "<style>",
        "</style>",
        "<title>",
        "</title>",
        "<table>",
        "<td>",
        "<svg>",
        "</svg>",
        "<![CDATA[",
        "]]>",
        "<a href=",
        "class=x",
        " id='y'",
        "x",
        "é",
        "1",
        "<br/>",
        "<iframe>",
        "</iframe>",
        "<b>",
        "</i>",
        "<li>",
        "<textarea>",
        "</textarea>",
    ];
    let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15);
    let mut covered = 0;
    for _ in 0..3000 {
        let n = 1 + next() % 40;
        let html: String = (0..n)
            .map(|_| PARTS[(next() % PARTS.len() as u64) as usize])
            .collect();
        let reference = outline(&Html::parse_document(&html));
        if let Some(tree) = fast(&html) {
            covered += 1;
            assert_eq!(outline(&tree), reference, "for {html:?}");
        }
    }
    // Most soup is covered (the rest ends inside a tag or a comment).
    assert!(covered > 1000, "only {covered} of 3000 covered");
}
