//! The expression graph: hash-consed, normalizing nodes in an arena.
//!
//! Both sides of a check — the IR function and the x86 program — are executed into one
//! [`Graph`]. Every node is built by a *smart constructor* ([`Graph::add`],
//! [`Graph::carry`], [`Graph::slice`], ...) that first rewrites it into a normal form and
//! then interns it (`Vec<Node>` + `HashMap<Node, NodeId>`, egg's `RecExpr` with a memo):
//! two computations that the rules can show equal end up as the same [`NodeId`], and
//! equivalence is then a comparison of ids. There are no e-classes: the normal form is
//! computed eagerly, bottom-up, once per node.
//!
//! # Meaning of a node
//!
//! Every node denotes a **non-negative integer** below 2^128 (not a bit vector of a fixed
//! width): zero-extension is the identity, so a carry bit in CF, the same bit after
//! `setc; movzx` in a 64-bit register, and Fiat's `u1` are one node. Widths appear only
//! where arithmetic wraps (`Add { w }` is a sum modulo 2^w) and in the per-node range
//! information ([`Info`]): an upper bound and a mask of the bits that may be nonzero.
//!
//! # Normal form (why this one)
//!
//! * **Bit structure is a concatenation of slices** ([`Node::Concat`]): shifts by
//!   constants, masks, `movzx`, `mov r32`, `bzhi`, `shl; shr`, `shrd`, `rorx`, `setc` into
//!   a byte of a register, byte-wise memory, the limbs of Fiat's `u128` values — all are
//!   "bits `from..from+len` of node `x` placed at bit `at`". Slices of slices are composed,
//!   adjacent slices merged, and slices trimmed by the range analysis, so every
//!   arrangement of the same bits is one node. The atoms inside are arithmetic nodes.
//! * **Modular sums are linear forms** ([`Node::Add`]): `Σ cᵢ·tᵢ + k mod 2^w`, flattened
//!   and with equal terms collected, so `lea [x+x*2]`, `imul x, 3` and Fiat's `x * 3` are
//!   one node; inside a sum a shift left is a power-of-two coefficient (outside, a lone
//!   `x << p` is the slice form, and the two convert into each other).
//! * **Carries are exact high parts** ([`Node::Carry`]: `⌊(Σ args + k) / 2^s⌋`) and
//!   **borrows are comparisons** ([`Node::Borrow`]: `a < Σ subs + k`). `add`/`adc`/
//!   `adcx`/`adox` and Fiat's `addcarryx` produce the same `Add` and `Carry` nodes from the
//!   same operands; `sub`/`sbb` and `subborrowx` the same `Add` and `Borrow` nodes. A
//!   borrow is kept as its own node rather than as `¬carry(a + ~b + ¬c)` because both
//!   sides compute it directly; the complement form would only add rules.
//! * **Products are exact** ([`Node::Prod`], up to 128 bits): `mulx`/`mul` give its two
//!   64-bit slices; Fiat's `u128` product *is* the node.
//! * **Sums wider than 64 bits are split into 64-bit limbs** as soon as they are built
//!   (rule `wide-add-split`): the low limb is the sum of the low limbs, the high limb the
//!   sum of the high limbs plus the carry of the low sum. Fiat's `u128` arithmetic thereby
//!   becomes the same `add`/`adc` structure the x86 code has.
//!
//! # Known limits (incompleteness, never unsoundness)
//!
//! * Carry chains are matched in the association the program uses, except for two
//!   regroupings: a chain split in two (`carry(a+b) + carry(lo+c)`, rule
//!   `carry-telescope`) and a sum that cannot wrap among a carry's arguments (rule
//!   `carry-flatten`). Other regroupings — a reduction's carries propagated as signed
//!   words (`sbb r, r; sar`), partial products summed in another order across limbs —
//!   are left apart here; the check then hands the differing outputs to the SAT sweep
//!   (`crate::sweep`), which proves many of them value for value.
//! * A shifted *sum* stays a bit slice even when the shift cuts bits off (only exact
//!   products with a constant become arithmetic, rule `shl-arith`): making it arithmetic
//!   would break the bit structure `shrd` done as `shr; shl; or` needs.
//! * The low bits of a product are `Prod` truncated to the product's width: a 32-bit
//!   `imul` of 64-bit values and the low 32 bits of a 64-bit `imul` are equal but not one
//!   node. (Neither the generator nor Fiat produce that.)
//!
//! Each rewrite is a named [`Rule`]; [`Graph::fired`] counts how often each was used,
//! and the property tests check every rule on random values with the concrete
//! evaluator ([`Graph::eval`]).
//!
//! This module must never know about x86 instructions or IR operations: it is pure
//! arithmetic, and its rules must be sound for every input within the declared bounds.
//!
//! # Layout
//!
//! * `arena`: the node kinds, the [`Graph`] arena with its hash-consing memo, the leaves,
//!   and traversal (reachability, the innermost difference of two expressions);
//! * `range`: the range analysis ([`Info`]: an upper bound and the possibly-nonzero
//!   bits of every node) and the integer helpers it is computed with;
//! * `rules`: the named [`Rule`]s, and the rewrites that are one rule as a whole
//!   (`shl-arith`, `wide-add-split`, `wide-mul-split`);
//! * the smart constructors, by kind: `bits` (slices, shifts by constants, masks,
//!   concatenations), `arith` (sums, carries, borrows, products), `bitwise` (`&`, `|`,
//!   `^`, `!`, conditions, `if`, arithmetic shifts and sign extension);
//! * `eval` (concrete evaluation) and `show` (printing).

mod arena;
mod arith;
mod bits;
mod bitwise;
mod eval;
mod range;
mod rules;
mod show;
#[cfg(test)]
pub(crate) mod tests;

pub use arena::{Graph, Node, NodeId, Seg, Sym};
pub use range::{mask, sig, Info};
pub use rules::Rule;
