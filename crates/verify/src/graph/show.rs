//! Printing of the expression graph: a node as an expression (cut at a length) for the
//! checker's reports, and a shallow form with node ids for debugging.
//!
//! The text is part of the checker's reports. This module only reads the graph: it must
//! never build a node (printing a report must not change what it reports on).

use std::fmt::Write as _;

use super::arena::{Graph, Node, NodeId};
use super::range::mask;

impl Graph {
    /// Node `id` down to `depth` levels, deeper arguments as `#id` (for debugging).
    pub fn show_shallow(&self, id: NodeId, depth: u32) -> String {
        if depth == 0 {
            return format!("#{}", id.0);
        }
        let args = self.args(id);
        let mut s = format!("#{}=", id.0);
        let head = match &self.nodes[id.index()] {
            Node::Add { w, k, terms } => format!(
                "add{w}[k={k:#x}; {}]",
                terms
                    .iter()
                    .map(|&(t, c)| format!("{c:#x}*{}", self.show_shallow(t, depth - 1)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Node::Concat { k, segs } => format!(
                "concat[k={k:#x}; {}]",
                segs.iter()
                    .map(|g| format!(
                        "{}[{}..{}]@{}",
                        self.show_shallow(g.node, depth - 1),
                        g.from,
                        g.from as u32 + g.len as u32,
                        g.at
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            n => format!(
                "{}({})",
                format!("{n:?}")
                    .split(['(', ' ', '{'])
                    .next()
                    .unwrap_or("?"),
                args.iter()
                    .map(|&a| self.show_shallow(a, depth - 1))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        s.push_str(&head);
        s
    }

    /// Node `id` as text, cut after about `limit` characters.
    pub fn show(&self, id: NodeId, limit: usize) -> String {
        let mut s = String::new();
        self.write(id, &mut s, limit);
        if s.len() > limit {
            let mut cut = limit;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
            s.push('…');
        }
        s
    }

    fn write(&self, id: NodeId, s: &mut String, limit: usize) {
        if s.len() > limit {
            return;
        }
        let list = |g: &Graph, s: &mut String, args: &[NodeId], sep: &str| {
            s.push('(');
            for (i, &a) in args.iter().enumerate() {
                if i > 0 {
                    s.push_str(sep);
                }
                g.write(a, s, limit);
            }
            s.push(')');
        };
        match &self.nodes[id.index()] {
            Node::Const(c) => write_const(s, *c),
            Node::Sym(sym) => match self.names.get(sym) {
                Some(n) => s.push_str(n),
                None => {
                    let _ = write!(s, "{sym:?}");
                }
            },
            Node::Add { w, k, terms } => {
                if *w != 64 {
                    let _ = write!(s, "add{w}");
                }
                s.push('(');
                let m = mask(*w as u32);
                for (i, &(t, c)) in terms.iter().enumerate() {
                    let neg = c > m / 2;
                    let mag = if neg { (m - c).wrapping_add(1) & m } else { c };
                    if i > 0 || neg {
                        s.push_str(if neg { " - " } else { " + " });
                    }
                    if mag != 1 {
                        write_const(s, mag);
                        s.push('*');
                    }
                    self.write(t, s, limit);
                }
                if *k != 0 {
                    s.push_str(" + ");
                    write_const(s, *k);
                }
                s.push(')');
            }
            &Node::Prod(a, b) => list(self, s, &[a, b], " * "),
            Node::MulMod { w, args } => {
                let _ = write!(s, "mul{w}");
                list(self, s, args, " * ");
            }
            Node::Carry { shift, k, args } => {
                let _ = write!(s, "carry{shift}");
                s.push('(');
                for (i, &a) in args.iter().enumerate() {
                    if i > 0 {
                        s.push_str(" + ");
                    }
                    self.write(a, s, limit);
                }
                if *k != 0 {
                    s.push_str(" + ");
                    write_const(s, *k);
                }
                s.push(')');
            }
            Node::Borrow { a, k, subs } => {
                s.push_str("borrow(");
                self.write(*a, s, limit);
                for &x in subs.iter() {
                    s.push_str(" - ");
                    self.write(x, s, limit);
                }
                if *k != 0 {
                    s.push_str(" - ");
                    write_const(s, *k);
                }
                s.push(')');
            }
            Node::And(args) => list(self, s, args, " & "),
            Node::Or(args) => list(self, s, args, " | "),
            Node::Xor(args) => list(self, s, args, " ^ "),
            Node::Concat { k, segs } => {
                let single = segs.len() == 1 && *k == 0 && segs[0].at == 0;
                if !single {
                    s.push('{');
                }
                for (i, seg) in segs.iter().enumerate() {
                    if i > 0 {
                        s.push_str(" | ");
                    }
                    self.write(seg.node, s, limit);
                    let _ = write!(s, "[{}..{}]", seg.from, seg.from as u32 + seg.len as u32);
                    if seg.at != 0 {
                        let _ = write!(s, " << {}", seg.at);
                    }
                }
                if *k != 0 {
                    s.push_str(" | ");
                    write_const(s, *k);
                }
                if !single {
                    s.push('}');
                }
            }
            &Node::Ite { c, t, e } => {
                s.push('(');
                self.write(c, s, limit);
                s.push_str(" ? ");
                self.write(t, s, limit);
                s.push_str(" : ");
                self.write(e, s, limit);
                s.push(')');
            }
            &Node::Eqz(x) => {
                s.push('(');
                self.write(x, s, limit);
                s.push_str(" == 0)");
            }
            &Node::Sar { w, n, x } => {
                let _ = write!(s, "sar{w}(");
                self.write(x, s, limit);
                let _ = write!(s, ", {n})");
            }
            &Node::Sext { from, w, x } => {
                let _ = write!(s, "sext{from}to{w}(");
                self.write(x, s, limit);
                s.push(')');
            }
        }
    }
}

fn write_const(s: &mut String, c: u128) {
    if c < 10 {
        let _ = write!(s, "{c}");
    } else {
        let _ = write!(s, "{c:#x}");
    }
}
