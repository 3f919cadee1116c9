//! Where commands write files: one rule for every file hk writes (`convert`, `roundtrip -o`,
//! `export`, `render`, `dump -o`, `build`, `sample`, `cm box`).
//!
//! - An output is never written through a symbolic link. A link at the output's path is
//!   refused, and the file is opened without following one, so a link put there after the
//!   check is refused too. Below an output folder, a link among the folders hk enters or
//!   creates is refused as well. The output file or folder named on the command line is
//!   taken as given.
//! - An output is never one of the command's inputs: the same file, known by device and
//!   inode (so another spelling of the path, or a hard link, is the same file), is refused,
//!   unless the command replaces its inputs on purpose (`hk convert --in-place`). Then the
//!   new bytes are written to a new file beside the input and renamed over it once complete.
//! - A batch checks every output before it writes the first ([`Outputs::check_under`]).
//! - An output left half-written by an error is removed.

use std::collections::HashSet;
use std::fs::{File, Metadata, OpenOptions};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// The device and inode of a file, which name it whatever the path.
#[cfg(unix)]
fn identity(m: &Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_: &Metadata) -> Option<(u64, u64)> {
    None
}

/// The outputs of one command run: what it reads, and whether it may replace that.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    inputs: HashSet<(u64, u64)>,
    /// Non-unix systems: the inputs' canonical paths.
    input_paths: HashSet<PathBuf>,
    in_place: bool,
    hint: &'static str,
}

/// What writing to a path does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// Creates the file or replaces one that is no input.
    Write,
    /// Replaces an input (`--in-place`).
    ReplaceInput,
}

impl Outputs {
    /// The outputs of a command that reads no file.
    pub fn new() -> Outputs {
        Outputs::default()
    }

    /// The outputs of a command that reads `inputs` (files; one that cannot be read is no
    /// input to protect).
    pub fn reading<P: AsRef<Path>>(inputs: impl IntoIterator<Item = P>) -> Outputs {
        let mut o = Outputs::default();
        for p in inputs {
            let p = p.as_ref();
            if let Ok(m) = std::fs::metadata(p) {
                match identity(&m) {
                    Some(id) => {
                        o.inputs.insert(id);
                    }
                    None => {
                        o.input_paths
                            .insert(p.canonicalize().unwrap_or(p.to_path_buf()));
                    }
                }
            }
        }
        o
    }

    /// These outputs, allowed to replace the inputs when `yes`.
    #[must_use]
    pub fn in_place(mut self, yes: bool) -> Outputs {
        self.in_place = yes;
        self
    }

    /// These outputs, whose refusal of an input names `hint` as the other way (such as
    /// `, or --in-place to replace them`).
    #[must_use]
    pub fn hint(mut self, hint: &'static str) -> Outputs {
        self.hint = hint;
        self
    }

    fn is_input(&self, path: &Path, m: &Metadata) -> bool {
        match identity(m) {
            Some(id) => self.inputs.contains(&id),
            None => path
                .canonicalize()
                .is_ok_and(|c| self.input_paths.contains(&c)),
        }
    }

    fn refuse(path: &Path, reason: impl Into<String>) -> Error {
        Error::Refused {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    fn link(path: &Path) -> Error {
        Self::refuse(
            path,
            "is a symbolic link: hk does not write through one (remove it, or choose another output)",
        )
    }

    /// What writing the file at `path` does, or why it must not be written.
    fn target(&self, path: &Path) -> Result<Target> {
        let m = match std::fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(_) => return Ok(Target::Write),
        };
        if m.file_type().is_symlink() {
            return Err(Self::link(path));
        }
        if !self.is_input(path, &m) {
            return Ok(Target::Write);
        }
        if self.in_place && m.is_file() {
            return Ok(Target::ReplaceInput);
        }
        Err(Self::refuse(
            path,
            format!(
                "is also an input of this command: hk does not write over its inputs (choose another output{})",
                self.hint
            ),
        ))
    }

    /// Checks that the file at `path` may be written.
    ///
    /// # Errors
    /// [`Error::Refused`]: a symbolic link, or an input.
    pub fn check(&self, path: &Path) -> Result<()> {
        self.target(path).map(|_| ())
    }

    /// Checks that the file `rel` below the output folder `root` may be written: no folder
    /// between them that exists is a symbolic link, and the file may be written
    /// ([`Outputs::check`]).
    ///
    /// # Errors
    /// [`Error::Refused`]: a symbolic link, a path that leaves `root`, or an input.
    pub fn check_under(&self, root: &Path, rel: &Path) -> Result<()> {
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(Self::refuse(
                &root.join(rel),
                "is not below the output folder",
            ));
        }
        let mut at = root.to_path_buf();
        let mut parts = rel.components().peekable();
        while let Some(c) = parts.next() {
            at.push(c);
            if parts.peek().is_none() {
                break;
            }
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => return Err(Self::link(&at)),
                Ok(_) => {}
                // Nothing further down exists yet.
                Err(_) => return Ok(()),
            }
        }
        self.check(&at)
    }

    /// Checks a folder a command writes whole (a schema folder, a generated crate) before
    /// it writes: none of what it holds may be a symbolic link. (These commands write
    /// through the schema writer, which checks no link; this check stops a link put there
    /// before the command runs.)
    ///
    /// # Errors
    /// [`Error::Refused`]: the first link found; a folder that cannot be read.
    pub fn check_folder(&self, dir: &Path) -> Result<()> {
        if !dir.is_dir() {
            return Ok(());
        }
        for e in walkdir::WalkDir::new(dir).min_depth(1) {
            let e = e.map_err(|e| {
                let path = e.path().unwrap_or(dir).to_path_buf();
                Error::io(
                    path,
                    e.into_io_error()
                        .unwrap_or_else(|| std::io::Error::other("cannot be searched")),
                )
            })?;
            if e.path_is_symlink() {
                return Err(Self::link(e.path()));
            }
        }
        Ok(())
    }

    /// Opens the file at `path` for writing, by the rule of this module.
    ///
    /// # Errors
    /// [`Error::Refused`], or the file cannot be opened.
    pub fn create(&self, path: &Path) -> Result<OutputFile> {
        match self.target(path)? {
            Target::Write => {
                let file = open_no_follow(path).map_err(|e| {
                    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
                        Self::link(path)
                    } else {
                        Error::io(path, e)
                    }
                })?;
                // Removed on failure only when it is a regular file (never a device).
                let regular = file.metadata().is_ok_and(|m| m.is_file());
                Ok(OutputFile {
                    path: path.to_path_buf(),
                    temp: None,
                    file,
                    done: !regular,
                })
            }
            Target::ReplaceInput => OutputFile::beside(path),
        }
    }

    /// Opens the file `rel` below the output folder `root` for writing, creating the
    /// folders between them (none of which may be a symbolic link).
    ///
    /// # Errors
    /// [`Error::Refused`], or a folder or the file cannot be made.
    pub fn create_under(&self, root: &Path, rel: &Path) -> Result<OutputFile> {
        self.check_under(root, rel)?;
        std::fs::create_dir_all(root).map_err(|e| Error::io(root, e))?;
        let mut at = root.to_path_buf();
        let mut parts = rel.components().peekable();
        while let Some(c) = parts.next() {
            at.push(c);
            if parts.peek().is_none() {
                break;
            }
            if let Err(e) = std::fs::create_dir(&at) {
                if e.kind() != std::io::ErrorKind::AlreadyExists {
                    return Err(Error::io(&at, e));
                }
            }
            let m = std::fs::symlink_metadata(&at).map_err(|e| Error::io(&at, e))?;
            if m.file_type().is_symlink() {
                return Err(Self::link(&at));
            }
        }
        self.create(&at)
    }

    /// Writes `bytes` to the file at `path` ([`Outputs::create`]).
    ///
    /// # Errors
    /// As [`Outputs::create`], or the bytes cannot be written.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        let mut f = self.create(path)?;
        f.write_all(bytes).map_err(|e| Error::io(path, e))?;
        f.finish()
    }

    /// Writes `bytes` to the file `rel` below the output folder `root`
    /// ([`Outputs::create_under`]).
    ///
    /// # Errors
    /// As [`Outputs::create_under`], or the bytes cannot be written.
    pub fn write_under(&self, root: &Path, rel: &Path, bytes: &[u8]) -> Result<()> {
        let mut f = self.create_under(root, rel)?;
        f.write_all(bytes)
            .map_err(|e| Error::io(root.join(rel), e))?;
        f.finish()
    }
}

/// Opens `path` for writing, creating or truncating it, without following a symbolic link
/// at its last component.
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW);
    }
    o.open(path)
}

/// An output file being written. [`OutputFile::finish`] keeps it; dropped before that (an
/// error on the way), it is removed.
#[derive(Debug)]
pub struct OutputFile {
    path: PathBuf,
    /// Replacing an input: the new file beside it, renamed over it by `finish`.
    temp: Option<PathBuf>,
    file: File,
    done: bool,
}

impl OutputFile {
    /// A new file beside the input `path`, to be renamed over it.
    fn beside(path: &Path) -> Result<OutputFile> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = path.parent().unwrap_or(Path::new("."));
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.hk-{}-{n}.tmp", std::process::id()));
        // `create_new` makes a new file or fails: it never opens a link put in its place.
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| Error::io(&temp, e))?;
        if let Ok(m) = std::fs::metadata(path) {
            let _ = file.set_permissions(m.permissions());
        }
        Ok(OutputFile {
            path: path.to_path_buf(),
            temp: Some(temp),
            file,
            done: false,
        })
    }

    /// The path the file is written to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the file: flushed, and renamed over the input it replaces.
    ///
    /// # Errors
    /// The file cannot be flushed or renamed.
    pub fn finish(mut self) -> Result<()> {
        self.file.flush().map_err(|e| Error::io(&self.path, e))?;
        if let Some(temp) = &self.temp {
            std::fs::rename(temp, &self.path).map_err(|e| Error::io(&self.path, e))?;
        }
        self.done = true;
        Ok(())
    }

    /// Whether the file at `path` is still the one this writes (not replaced meanwhile).
    fn still_ours(&self, path: &Path) -> bool {
        let (Ok(ours), Ok(there)) = (self.file.metadata(), std::fs::symlink_metadata(path)) else {
            return false;
        };
        there.is_file() && identity(&ours).is_none_or(|id| identity(&there) == Some(id))
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        let path = self.temp.as_ref().unwrap_or(&self.path);
        if !self.done && self.still_ours(path) {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_half_written_output_is_removed_and_a_finished_one_kept() {
        let dir = hk_tests::temp_dir("outputs-unit");
        let o = Outputs::new();
        let half = dir.join("half.bin");
        {
            let mut f = o.create(&half).unwrap();
            f.write_all(b"part").unwrap();
        }
        assert!(!half.exists(), "dropped before finish: removed");
        o.write_under(&dir, Path::new("a/b/done.bin"), b"all")
            .unwrap();
        assert_eq!(std::fs::read(dir.join("a/b/done.bin")).unwrap(), b"all");
        // A device is never removed, whatever happens.
        let null = o.create(Path::new("/dev/null")).unwrap();
        drop(null);
        assert!(Path::new("/dev/null").exists());
    }

    #[test]
    fn in_place_replaces_an_input_only_when_finished() {
        let dir = hk_tests::temp_dir("outputs-in-place");
        let input = dir.join("in.bin");
        std::fs::write(&input, b"old").unwrap();
        let refused = Outputs::reading([&input]);
        assert!(matches!(refused.check(&input), Err(Error::Refused { .. })));
        let o = Outputs::reading([&input]).in_place(true);
        {
            let mut f = o.create(&input).unwrap();
            f.write_all(b"new, half").unwrap();
        }
        assert_eq!(
            std::fs::read(&input).unwrap(),
            b"old",
            "dropped: input kept"
        );
        o.write(&input, b"new").unwrap();
        assert_eq!(std::fs::read(&input).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(&*dir).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left");
    }

    #[test]
    fn a_path_that_leaves_the_output_folder_is_refused() {
        let dir = hk_tests::temp_dir("outputs-leave");
        for rel in ["../x.bin", "/x.bin", "a/../../x.bin"] {
            let e = Outputs::new()
                .check_under(&dir, Path::new(rel))
                .unwrap_err();
            assert!(e.to_string().contains("not below the output folder"), "{e}");
        }
    }
}
