//! Arguments several commands share, each declared once and flattened into the commands
//! that take it.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::Args;

/// `--schema`: the schema a command reads files with instead of the selection rule.
#[derive(Debug, Args)]
pub struct SchemaArg {
    /// Read with this schema instead of the selection rule: a schema folder (a path) or
    /// the name of one among the schemas (built in, or under --schemas).
    #[arg(long, value_name = "DIR|NAME")]
    pub schema: Option<PathBuf>,
    /// The type compendium (a `TCM0` file, Elden Ring's `.compendium`) that tagfiles
    /// holding a `TCRF` reference take their types from.
    #[arg(long, value_name = "FILE")]
    pub compendium: Option<PathBuf>,
}

impl SchemaArg {
    /// The schema given, if any.
    pub fn get(&self) -> Option<&Path> {
        self.schema.as_deref()
    }

    /// The compendium given, if any.
    pub fn compendium(&self) -> Option<&Path> {
        self.compendium.as_deref()
    }
}

/// `--follow-symlinks`: how commands over folders treat the links they find.
#[derive(Debug, Args)]
pub struct FollowSymlinks {
    /// Follow symbolic links found in folders (each folder is searched once; by default
    /// links found in folders are left out and counted).
    #[arg(long)]
    pub follow_symlinks: bool,
}

/// Whether to draw a progress bar: only when stderr is a terminal.
pub fn progress() -> bool {
    std::io::stderr().is_terminal()
}
