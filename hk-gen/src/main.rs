//! `hk`: the command line of the hk Havok toolkit. Parses arguments ([`cli::Cli`]), runs
//! one command of the library and prints its error.

use std::process::ExitCode;

use clap::Parser;
use hk_gen::Out;

mod cli;

/// The object graph is many small values (structs, strings, arrays), allocated and freed
/// per file: mimalloc's size-class pages serve them faster than the system allocator
/// (docs/status.md, "Speed").
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let mut stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr();
    let mut o = Out::new(&mut stdout, &mut stderr);
    let result = cli.run(&mut o);
    let _ = o.flush();
    match result {
        Ok(status) => ExitCode::from(status.code()),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            if let Some(limit) = e.limit() {
                eprintln!("hint: a file this large or this nested may be legitimate: raise the limit with --{limit}");
            }
            ExitCode::from(2)
        }
    }
}
