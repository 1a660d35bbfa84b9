//! The page's HTML tree as html5ever's tree builder makes it, kept in one
//! vector of nodes linked by index. The extractor reads elements, their
//! attributes and texts; the builder asks for element names at most tags
//! (scope checks walk the stack of open elements), so a name is one index
//! away, with no `Option` to unwrap on the way.

use html5ever::tendril::{StrTendril, TendrilSink as _};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{expanded_name, local_name, ns, Attribute, QualName};
use std::borrow::Cow;
use std::cell::{Ref, RefCell};

/// A node's index in its tree.
pub type NodeId = u32;

const NONE: NodeId = NodeId::MAX;

pub enum Node {
    Document,
    Doctype {
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    },
    Comment(StrTendril),
    Text(StrTendril),
    Element(Element),
    /// A template's contents: the template element's first child.
    Fragment,
    ProcessingInstruction {
        target: StrTendril,
        data: StrTendril,
    },
}

pub struct Element {
    pub name: QualName,
    /// Ordered by name (as `QualName` orders them), one per name.
    pub attrs: Vec<Attribute>,
}

impl Element {
    /// The local name (html5ever lowercases HTML tag names).
    pub fn name(&self) -> &str {
        &self.name.local
    }

    /// Every attribute: local name and value.
    pub fn attrs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.attrs.iter().map(|a| (&*a.name.local, &*a.value))
    }
}

struct Slot {
    node: Node,
    parent: NodeId,
    prev_sibling: NodeId,
    next_sibling: NodeId,
    first_child: NodeId,
    last_child: NodeId,
}

/// A parsed page: node 0 is the document.
pub struct Html {
    slots: Vec<Slot>,
    pub quirks_mode: QuirksMode,
}

impl Html {
    /// An empty document with room for `nodes` nodes.
    pub fn with_capacity(nodes: usize) -> Html {
        let mut html = Html {
            slots: Vec::with_capacity(nodes),
            quirks_mode: QuirksMode::NoQuirks,
        };
        html.orphan(Node::Document);
        html
    }

    /// The page as html5ever's own tokenizer and tree builder read it.
    pub fn parse_document(body: &str) -> Html {
        html5ever::parse_document(Sink::new(Html::with_capacity(64)), Default::default()).one(body)
    }

    pub fn root(&self) -> NodeRef<'_> {
        NodeRef { html: self, id: 0 }
    }

    /// The document's first element (`html`; the tree builder always makes
    /// one).
    pub fn root_element(&self) -> ElementRef<'_> {
        self.root()
            .children()
            .find_map(ElementRef::wrap)
            .expect("the tree builder makes an html element")
    }

    fn orphan(&mut self, node: Node) -> NodeId {
        let id = NodeId::try_from(self.slots.len()).expect("fewer than 2^32 nodes");
        self.slots.push(Slot {
            node,
            parent: NONE,
            prev_sibling: NONE,
            next_sibling: NONE,
            first_child: NONE,
            last_child: NONE,
        });
        id
    }

    fn slot(&self, id: NodeId) -> &Slot {
        &self.slots[id as usize]
    }

    fn slot_mut(&mut self, id: NodeId) -> &mut Slot {
        &mut self.slots[id as usize]
    }

    /// Takes a node out of its parent's children.
    fn detach(&mut self, id: NodeId) {
        let Slot {
            parent,
            prev_sibling: prev,
            next_sibling: next,
            ..
        } = *self.slot(id);
        if parent == NONE {
            return;
        }
        let s = self.slot_mut(id);
        (s.parent, s.prev_sibling, s.next_sibling) = (NONE, NONE, NONE);
        if prev != NONE {
            self.slot_mut(prev).next_sibling = next;
        } else {
            self.slot_mut(parent).first_child = next;
        }
        if next != NONE {
            self.slot_mut(next).prev_sibling = prev;
        } else {
            self.slot_mut(parent).last_child = prev;
        }
    }

    /// Makes `child` the last child of `parent`.
    fn append(&mut self, parent: NodeId, child: NodeId) {
        if self.slot(parent).last_child == child {
            return;
        }
        self.detach(child);
        let last = self.slot(parent).last_child;
        let s = self.slot_mut(child);
        (s.parent, s.prev_sibling) = (parent, last);
        if last != NONE {
            self.slot_mut(last).next_sibling = child;
        } else {
            self.slot_mut(parent).first_child = child;
        }
        self.slot_mut(parent).last_child = child;
    }

    /// Puts `node` right before `sibling` (which has a parent).
    fn insert_before(&mut self, sibling: NodeId, node: NodeId) {
        self.detach(node);
        let Slot {
            parent,
            prev_sibling: prev,
            ..
        } = *self.slot(sibling);
        let s = self.slot_mut(node);
        (s.parent, s.prev_sibling, s.next_sibling) = (parent, prev, sibling);
        if prev != NONE {
            self.slot_mut(prev).next_sibling = node;
        } else {
            self.slot_mut(parent).first_child = node;
        }
        self.slot_mut(sibling).prev_sibling = node;
    }

    /// `text` joined to `beside` when that is a text node (`None`), else a
    /// new text node for the caller to place.
    fn text_beside(&mut self, beside: NodeId, text: StrTendril) -> Option<NodeId> {
        if beside != NONE {
            if let Node::Text(t) = &mut self.slot_mut(beside).node {
                t.push_tendril(&text);
                return None;
            }
        }
        Some(self.orphan(Node::Text(text)))
    }
}

/// A node of a tree.
#[derive(Clone, Copy)]
pub struct NodeRef<'a> {
    html: &'a Html,
    id: NodeId,
}

impl<'a> NodeRef<'a> {
    pub fn value(&self) -> &'a Node {
        &self.html.slot(self.id).node
    }

    pub fn children(&self) -> Children<'a> {
        Children {
            html: self.html,
            next: self.html.slot(self.id).first_child,
        }
    }

    /// The nodes of this node's subtree, this node first, in document
    /// order.
    fn descendants(&self) -> Descendants<'a> {
        Descendants {
            html: self.html,
            root: self.id,
            next: self.id,
        }
    }
}

pub struct Children<'a> {
    html: &'a Html,
    next: NodeId,
}

impl<'a> Iterator for Children<'a> {
    type Item = NodeRef<'a>;

    fn next(&mut self) -> Option<NodeRef<'a>> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        self.next = self.html.slot(id).next_sibling;
        Some(NodeRef {
            html: self.html,
            id,
        })
    }
}

struct Descendants<'a> {
    html: &'a Html,
    root: NodeId,
    next: NodeId,
}

impl<'a> Iterator for Descendants<'a> {
    type Item = NodeRef<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        // Pre-order: the first child, else the next sibling of the nearest
        // node (up to the root) that has one.
        let slot = self.html.slot(id);
        self.next = if slot.first_child != NONE {
            slot.first_child
        } else {
            let mut at = id;
            loop {
                if at == self.root {
                    break NONE;
                }
                let s = self.html.slot(at);
                if s.next_sibling != NONE {
                    break s.next_sibling;
                }
                at = s.parent;
            }
        };
        Some(NodeRef {
            html: self.html,
            id,
        })
    }
}

/// An element node of a tree.
#[derive(Clone, Copy)]
pub struct ElementRef<'a> {
    node: NodeRef<'a>,
    element: &'a Element,
}

impl<'a> ElementRef<'a> {
    /// The node as an element, if it is one.
    pub fn wrap(node: NodeRef<'a>) -> Option<ElementRef<'a>> {
        match node.value() {
            Node::Element(element) => Some(ElementRef { node, element }),
            _ => None,
        }
    }

    pub fn value(&self) -> &'a Element {
        self.element
    }

    pub fn children(&self) -> Children<'a> {
        self.node.children()
    }

    /// The texts of the element's subtree, in document order.
    pub fn text(&self) -> impl Iterator<Item = &'a str> + 'a {
        self.node.descendants().filter_map(|n| match n.value() {
            Node::Text(t) => Some(&**t),
            _ => None,
        })
    }
}

/// `a.cmp(b)`: for two names in no namespace (HTML's attributes), their
/// local names compared byte by byte inline (an atom's comparison is a
/// call to `memcmp`, which in WebAssembly is an ordinary function).
fn name_order(a: &QualName, b: &QualName) -> std::cmp::Ordering {
    if a.prefix.is_none() && b.prefix.is_none() && a.ns == ns!() && b.ns == ns!() {
        let (x, y) = (a.local.as_bytes(), b.local.as_bytes());
        for (p, q) in x.iter().zip(y) {
            if p != q {
                return p.cmp(q);
            }
        }
        return x.len().cmp(&y.len());
    }
    a.cmp(b)
}

/// Builds an [`Html`] for html5ever's tree builder, as scraper's sink built
/// its tree: texts appended next to a text join it, a template's contents
/// are a fragment under it, attributes are ordered by name.
pub struct Sink(RefCell<Html>);

impl Sink {
    pub fn new(html: Html) -> Sink {
        Sink(RefCell::new(html))
    }
}

impl TreeSink for Sink {
    type Handle = NodeId;
    type Output = Html;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Html {
        self.0.into_inner()
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.0.borrow_mut().quirks_mode = mode;
    }

    fn get_document(&self) -> NodeId {
        0
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Ref<'a, QualName> {
        Ref::map(self.0.borrow(), |html| match &html.slot(*target).node {
            Node::Element(e) => &e.name,
            _ => unreachable!("the tree builder asks names of elements only"),
        })
    }

    fn create_element(
        &self,
        name: QualName,
        mut attrs: Vec<Attribute>,
        _flags: ElementFlags,
    ) -> NodeId {
        let template = name.expanded() == expanded_name!(html "template");
        attrs.sort_unstable_by(|a, b| name_order(&a.name, &b.name));
        let mut html = self.0.borrow_mut();
        let id = html.orphan(Node::Element(Element { name, attrs }));
        if template {
            let contents = html.orphan(Node::Fragment);
            html.append(id, contents);
        }
        id
    }

    fn create_comment(&self, text: StrTendril) -> NodeId {
        self.0.borrow_mut().orphan(Node::Comment(text))
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> NodeId {
        self.0
            .borrow_mut()
            .orphan(Node::ProcessingInstruction { target, data })
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        let mut html = self.0.borrow_mut();
        let doctype = html.orphan(Node::Doctype {
            name,
            public_id,
            system_id,
        });
        html.append(0, doctype);
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        let mut html = self.0.borrow_mut();
        match child {
            NodeOrText::AppendNode(id) => html.append(*parent, id),
            NodeOrText::AppendText(text) => {
                let last = html.slot(*parent).last_child;
                if let Some(id) = html.text_beside(last, text) {
                    html.append(*parent, id);
                }
            }
        }
    }

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        let mut html = self.0.borrow_mut();
        if let NodeOrText::AppendNode(id) = new_node {
            html.detach(id);
        }
        if html.slot(*sibling).parent == NONE {
            return;
        }
        match new_node {
            NodeOrText::AppendNode(id) => html.insert_before(*sibling, id),
            NodeOrText::AppendText(text) => {
                let prev = html.slot(*sibling).prev_sibling;
                if let Some(id) = html.text_beside(prev, text) {
                    html.insert_before(*sibling, id);
                }
            }
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let has_parent = self.0.borrow().slot(*element).parent != NONE;
        if has_parent {
            self.append_before_sibling(element, child)
        } else {
            self.append(prev_element, child)
        }
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.0.borrow_mut().detach(*target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        let mut html = self.0.borrow_mut();
        let mut child = html.slot(*node).first_child;
        while child != NONE {
            let next = html.slot(child).next_sibling;
            html.append(*new_parent, child);
            child = next;
        }
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        let mut html = self.0.borrow_mut();
        let Node::Element(element) = &mut html.slot_mut(*target).node else {
            unreachable!("the tree builder adds attributes to elements only");
        };
        for attr in attrs {
            if let Err(at) = element.attrs.binary_search_by(|a| a.name.cmp(&attr.name)) {
                element.attrs.insert(at, attr);
            }
        }
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        self.0.borrow().slot(*target).first_child
    }
}

/// Every node of a tree, one per line with its depth: what two parses are
/// compared by (elements with namespaces and attributes in order, texts,
/// comments, the doctype, the quirks mode).
#[doc(hidden)]
pub fn outline(html: &Html) -> String {
    use std::fmt::Write as _;
    let mut out = format!("quirks {:?}\n", html.quirks_mode);
    let mut stack = vec![(html.root(), 0usize)];
    while let Some((node, depth)) = stack.pop() {
        let _ = write!(out, "{depth} ");
        let _ = match node.value() {
            Node::Element(e) => {
                let _ = write!(out, "<{:?} {}", e.name.ns, e.name.local);
                for a in &e.attrs {
                    let _ = write!(out, " {:?}:{}={:?}", a.name.ns, a.name.local, &*a.value);
                }
                writeln!(out, ">")
            }
            Node::Text(t) => writeln!(out, "text {:?}", &**t),
            Node::Comment(c) => writeln!(out, "comment {:?}", &**c),
            Node::Doctype {
                name,
                public_id,
                system_id,
            } => writeln!(
                out,
                "doctype {:?} {:?} {:?}",
                &**name, &**public_id, &**system_id
            ),
            Node::Document => writeln!(out, "document"),
            Node::Fragment => writeln!(out, "fragment"),
            Node::ProcessingInstruction { data, .. } => writeln!(out, "pi {:?}", &**data),
        };
        let children: Vec<_> = node.children().collect();
        stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text nodes merge, templates hold their contents in a fragment, and
    /// misnested formatting is rebuilt (the adoption agency moves nodes).
    #[test]
    fn names_are_ordered_as_qual_names_are() {
        let names = [
            "a",
            "ab",
            "b",
            "data-x",
            "data-",
            "",
            "é",
            "Z",
            "xlink:href",
        ];
        let qual = |n: &str| QualName::new(None, ns!(), n.into());
        for x in names {
            for y in names {
                assert_eq!(
                    name_order(&qual(x), &qual(y)),
                    qual(x).cmp(&qual(y)),
                    "{x} {y}"
                );
            }
        }
        let xlink = QualName::new(Some("xlink".into()), ns!(xlink), "href".into());
        assert_eq!(name_order(&xlink, &qual("a")), xlink.cmp(&qual("a")));
    }

    #[test]
    fn the_tree_is_the_tree_html5ever_describes() {
        let html = Html::parse_document(
            "<p>a<!---->b<template><i>t</i></template><b>1<i>2</b>3</i>\
             <table><tr><td>x</td></tr>y</table>",
        );
        let outline = outline(&html);
        let expected = [
            "quirks Quirks",
            "0 document",
            "1 <Atom('http://www.w3.org/1999/xhtml' type=static) html>",
            "2 <Atom('http://www.w3.org/1999/xhtml' type=static) head>",
            "2 <Atom('http://www.w3.org/1999/xhtml' type=static) body>",
            "3 <Atom('http://www.w3.org/1999/xhtml' type=static) p>",
            "4 text \"a\"",
            "4 comment \"\"",
            "4 text \"b\"",
            "4 <Atom('http://www.w3.org/1999/xhtml' type=static) template>",
            "5 fragment",
            "6 <Atom('http://www.w3.org/1999/xhtml' type=static) i>",
            "7 text \"t\"",
            "4 <Atom('http://www.w3.org/1999/xhtml' type=static) b>",
            "5 text \"1\"",
            "5 <Atom('http://www.w3.org/1999/xhtml' type=static) i>",
            "6 text \"2\"",
            "4 <Atom('http://www.w3.org/1999/xhtml' type=static) i>",
            "5 text \"3\"",
            "4 text \"y\"",
            "4 <Atom('http://www.w3.org/1999/xhtml' type=static) table>",
            "5 <Atom('http://www.w3.org/1999/xhtml' type=static) tbody>",
            "6 <Atom('http://www.w3.org/1999/xhtml' type=static) tr>",
            "7 <Atom('http://www.w3.org/1999/xhtml' type=static) td>",
            "8 text \"x\"",
        ];
        assert_eq!(outline.lines().collect::<Vec<_>>(), expected);
        let body = html.root_element().children().nth(1).unwrap();
        let text: String = ElementRef::wrap(body).unwrap().text().collect();
        assert_eq!(text, "abt123yx");
    }
}
