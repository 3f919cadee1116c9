//! `hk`: the command line of the hk Havok toolkit.

mod cmd;
mod import;
mod schemas;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Reads, writes, checks and generates code for Havok physics files.
#[derive(Debug, Parser)]
#[command(name = "hk", version, about)]
struct Cli {
    /// Folder holding the schema folders (default: $HK_SCHEMAS, else the schemas/ hk was built with).
    #[arg(long, global = true)]
    schemas: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Schema folders: signatures, checks against files, extraction, import.
    #[command(subcommand)]
    Schema(cmd::schema::SchemaCmd),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let roots = schemas::Roots::new(cli.schemas);
    let result = match cli.command {
        Command::Schema(c) => cmd::schema::run(c, &roots),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
