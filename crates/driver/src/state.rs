//! `state.json`: a search's state and what is needed to resume it (the options, the
//! input, the function itself as Fiat JSON). Read and written whole; the format is the
//! one earlier versions wrote (fields added since are optional).

use std::path::{Path, PathBuf};

use cryptopt_codegen::Options;
use cryptopt_ir::Function;
use cryptopt_search::SearchState;

use crate::{files, Error, Result, Within};

/// What `state.json` holds: the search state plus what is needed to resume it.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct SavedState {
    pub options: Options,
    pub input: PathBuf,
    /// The function itself, as Fiat JSON (so resuming needs nothing else, whether it
    /// came from a file or a generator). Absent in states of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<serde_json::Value>,
    /// [`crate::Job::representation`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub representation: Option<String>,
    /// The algorithm the search is over ([`cryptopt_gen::fields::Algorithm`]'s name),
    /// chosen among the function's; absent: the function's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    pub search: SearchState,
}

impl SavedState {
    /// Reads a saved `state.json`.
    pub fn read(path: &Path) -> Result<SavedState> {
        let text = files::read(path)?;
        serde_json::from_str(&text).within(|| format!("{} is not a cryptopt state", path.display()))
    }

    /// The function the state is for: the saved copy, or (older states) its input file.
    pub fn function(&self) -> Result<Function> {
        let name = &self.search.function;
        match &self.function {
            Some(json) => Ok(cryptopt_frontend::fiat::parse_function(
                &json.to_string(),
                name,
            )?),
            None => files::load(&self.input, Some(name), false),
        }
    }

    /// The state as `state.json`'s text.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(Error::from)
    }
}
