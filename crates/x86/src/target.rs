//! Instruction-set levels (`--target`): which CPU features beyond baseline x86-64 a
//! program may use. Code generation asks it which instructions it may choose; the
//! binary and the checker ask it whether a finished program keeps to its level. It
//! knows nothing of how code is made or proved: only [`Mnemonic::feature`].

use crate::{Mnemonic, Program};

/// The instruction-set level the code is made for (`--target`): which instructions code
/// generation may choose. Every level runs on the ones above it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum Target {
    /// Baseline x86-64: `mul` with its fixed rax/rdx operands, `adc`, `imul`; no BMI.
    #[serde(rename = "x86-64")]
    X86_64,
    /// BMI2 without ADX: `mulx`, `shlx`/`shrx`, `bzhi`; one carry chain at a time
    /// (`add`/`adc` on CF only).
    #[serde(rename = "x86-64-bmi2")]
    Bmi2,
    /// BMI2 and ADX: two carry chains at once (`adcx` on CF, `adox` on OF).
    #[default]
    #[serde(rename = "x86-64-adx")]
    Adx,
}

impl Target {
    /// Every target, from the most general to the most specific.
    pub const ALL: [Target; 3] = [Target::X86_64, Target::Bmi2, Target::Adx];

    /// Its name on the command line and in saved results.
    pub fn name(self) -> &'static str {
        match self {
            Target::X86_64 => "x86-64",
            Target::Bmi2 => "x86-64-bmi2",
            Target::Adx => "x86-64-adx",
        }
    }

    /// The CPU features beyond baseline x86-64 that code for this target may need, as
    /// [`Mnemonic::feature`] names them (BMI1 comes with every BMI2 CPU).
    pub fn features(self) -> &'static [&'static str] {
        match self {
            Target::X86_64 => &[],
            Target::Bmi2 => &["BMI1", "BMI2"],
            Target::Adx => &["BMI1", "BMI2", "ADX"],
        }
    }

    /// May code for this target use `mn`? The one home of what each level allows:
    /// code generation's templates ask it, and [`Target::foreign`] checks a finished
    /// program with it.
    pub fn allows(self, mn: Mnemonic) -> bool {
        mn.feature().is_none_or(|f| self.features().contains(&f))
    }

    /// The first instruction of `p` this target does not allow, if any: what a caller
    /// checks before writing a program out as code for this target.
    pub fn foreign(self, p: &Program) -> Option<Mnemonic> {
        p.insts.iter().map(|i| i.mn).find(|&mn| !self.allows(mn))
    }

    /// Does this target have `mulx` (else: `mul` with rax/rdx)?
    pub fn has_mulx(self) -> bool {
        self != Target::X86_64
    }

    /// Does this target have `adcx`/`adox` (two carry chains)?
    pub fn has_adx(self) -> bool {
        self == Target::Adx
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Target;
    use crate::Mnemonic as M;

    /// Which level allows which instruction: a table through one check.
    #[test]
    fn levels_allow_what_their_features_give() {
        fn check(mn: M, allowed_on: [bool; 3]) {
            for (t, want) in Target::ALL.into_iter().zip(allowed_on) {
                assert_eq!(t.allows(mn), want, "{mn} on {t}");
            }
        }
        //          x86-64  bmi2   adx
        check(M::Add, [true, true, true]);
        check(M::Adc, [true, true, true]);
        check(M::Mul, [true, true, true]);
        check(M::Imul, [true, true, true]);
        check(M::Shrd, [true, true, true]);
        check(M::Mulx, [false, true, true]);
        check(M::Shrx, [false, true, true]);
        check(M::Bzhi, [false, true, true]);
        check(M::Andn, [false, true, true]);
        check(M::Adcx, [false, false, true]);
        check(M::Adox, [false, false, true]);
        check(M::Vpaddq, [false, false, false]);
    }
}
