//! Instruction-set levels (`--target`): which CPU features beyond baseline x86-64 a
//! program may use. Code generation asks it which instructions it may choose; the
//! binary and the checker ask it whether a finished program keeps to its level. It
//! knows nothing of how code is made or proved: only [`Mnemonic::feature`].

use crate::{Feature, Inst, Mnemonic, Program};

/// The instruction-set level the code is made for (`--target`): which instructions code
/// generation may choose. Every level runs on the ones above it. Saved (serde) and
/// given on the command line by its [`Target::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Target {
    /// Baseline x86-64: `mul` with its fixed rax/rdx operands, `adc`, `imul`; no BMI.
    X86_64,
    /// BMI2 without ADX: `mulx`, `shlx`/`shrx`, `bzhi`; one carry chain at a time
    /// (`add`/`adc` on CF only).
    Bmi2,
    /// BMI2 and ADX: two carry chains at once (`adcx` on CF, `adox` on OF).
    #[default]
    Adx,
    /// ADX and the vector instructions, AVX-512 IFMA (with VL and DQ) included: the
    /// level of vector code (cryptopt-ir's vector dialect). Not one of
    /// [`Target::ALL`], the scalar levels a dispatcher chooses between.
    Avx512Ifma,
}

impl Target {
    /// Every scalar target, from the most general to the most specific: the levels
    /// `--emit dispatch` makes a program for.
    pub const ALL: [Target; 3] = [Target::X86_64, Target::Bmi2, Target::Adx];

    /// Every target by name: the scalar ones, then the vector one.
    pub const NAMED: [Target; 4] = [
        Target::X86_64,
        Target::Bmi2,
        Target::Adx,
        Target::Avx512Ifma,
    ];

    /// Its name on the command line and in saved results (the one home of the names).
    pub fn name(self) -> &'static str {
        match self {
            Target::X86_64 => "x86-64",
            Target::Bmi2 => "x86-64-bmi2",
            Target::Adx => "x86-64-adx",
            Target::Avx512Ifma => "x86-64-avx512ifma",
        }
    }

    /// The target of that [`Target::name`].
    pub fn from_name(name: &str) -> Option<Target> {
        Target::NAMED.into_iter().find(|t| t.name() == name)
    }

    /// May code for this target use `mn`? The one home of what each level allows:
    /// code generation's templates ask it (in the hot loop: a match, no lookup), and
    /// [`Target::beyond`] checks a finished program with it. BMI1 comes with every
    /// BMI2 CPU; only the vector level has the vector instructions.
    pub fn allows(self, mn: Mnemonic) -> bool {
        match mn.feature() {
            None => true,
            Some(Feature::Bmi1 | Feature::Bmi2) => self != Target::X86_64,
            Some(Feature::Adx) => matches!(self, Target::Adx | Target::Avx512Ifma),
            Some(Feature::Avx2 | Feature::Avx512Ifma) => self == Target::Avx512Ifma,
        }
    }

    /// The instructions of `p` this target does not allow, with their index and the
    /// feature each needs: what the binary checks before writing a program out as code
    /// for this target, and what the checker reports when told a target.
    pub fn beyond(self, p: &Program) -> impl Iterator<Item = (usize, &Inst, Feature)> {
        p.insts.iter().enumerate().filter_map(move |(k, i)| {
            let f = i.mn.feature()?;
            (!self.allows(i.mn)).then_some((k, i, f))
        })
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Target {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Target {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Target, D::Error> {
        let name = String::deserialize(d)?;
        Target::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown target `{name}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::Target;
    use crate::Mnemonic as M;

    /// Which level allows which instruction: a table through one check.
    #[test]
    fn levels_allow_what_their_features_give() {
        fn check(mn: M, allowed_on: [bool; 4]) {
            for (t, want) in Target::NAMED.into_iter().zip(allowed_on) {
                assert_eq!(t.allows(mn), want, "{mn} on {t}");
            }
        }
        //          x86-64  bmi2   adx    avx512ifma
        check(M::Add, [true, true, true, true]);
        check(M::Adc, [true, true, true, true]);
        check(M::Mul, [true, true, true, true]);
        check(M::Imul, [true, true, true, true]);
        check(M::Shrd, [true, true, true, true]);
        check(M::Mulx, [false, true, true, true]);
        check(M::Shrx, [false, true, true, true]);
        check(M::Bzhi, [false, true, true, true]);
        check(M::Andn, [false, true, true, true]);
        check(M::Adcx, [false, false, true, true]);
        check(M::Adox, [false, false, true, true]);
        check(M::Vpaddq, [false, false, false, true]);
        check(M::Vpmadd52luq, [false, false, false, true]);
    }

    /// Every name reads back as its target; anything else is none.
    #[test]
    fn names_read_back() {
        for t in Target::NAMED {
            assert_eq!(Target::from_name(t.name()), Some(t));
        }
        assert_eq!(Target::from_name("x86_64"), None);
        assert_eq!(Target::from_name(""), None);
    }
}
