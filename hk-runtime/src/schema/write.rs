//! Writing a schema as a folder of TOML files (the format of `schemas/README.md`).

use std::fmt::Write as _;
use std::path::Path;

use super::{Class, Generation, Schema};
use crate::error::Result;

use toml_writer::ToTomlValue as _;

fn q(s: &str) -> String {
    toml_writer::TomlStringBuilder::new(s)
        .as_default()
        .to_toml_value()
}

impl Generation {
    /// The `generation.toml` text.
    pub fn to_toml(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "name = {}", q(&self.name));
        let _ = writeln!(o, "container = {}", q(self.container.name()));
        let _ = writeln!(o, "file_version = {}", self.file_version);
        let _ = writeln!(o, "contents_version = {}", q(&self.contents_version));
        let l = self.layout;
        let _ = writeln!(o, "\n[layout]");
        let _ = writeln!(o, "pointer_size = {}", l.pointer_size);
        let _ = writeln!(o, "endian = {}", q(l.endian.name()));
        let _ = writeln!(o, "reuse_padding = {}", l.reuse_padding);
        let _ = writeln!(o, "empty_base = {}", l.empty_base);
        let _ = writeln!(o, "\n[member_types]");
        for (k, n) in &self.member_types {
            let _ = writeln!(o, "{} = {n}", k.name());
        }
        let _ = writeln!(o, "\n[member_flags]");
        for (k, v) in &self.member_flags {
            let _ = writeln!(o, "{k} = {v}");
        }
        if self.packfile != super::PackfileRules::default() {
            let _ = writeln!(o, "\n[packfile]");
            let _ = writeln!(o, "string_align = {}", self.packfile.string_align);
        }
        if let Some(t) = &self.tagfile {
            let _ = writeln!(o, "\n[tagfile]");
            let _ = writeln!(o, "dedupe_strings = {}", t.dedupe_strings);
            let _ = writeln!(o, "templates_first = {}", t.templates_first);
            let _ = writeln!(o, "string_pad = {}", t.string_pad);
            let tags: Vec<String> = t
                .tags
                .iter()
                .map(|b| q(&String::from_utf8_lossy(b)))
                .collect();
            let _ = writeln!(o, "subsection_tags = [{}]", tags.join(", "));
        }
        o
    }
}

impl Class {
    /// The class file text, flags spelled with `generation`'s names.
    pub fn to_toml(&self, generation: &Generation) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "name = {}", q(&self.name));
        if let Some(p) = &self.parent {
            let _ = writeln!(o, "parent = {}", q(p));
        }
        if self.interfaces != 0 {
            let _ = writeln!(o, "interfaces = {}", self.interfaces);
        }
        if self.version != 0 {
            let _ = writeln!(o, "version = {}", self.version);
        }
        if self.flags != 0 {
            let _ = writeln!(o, "flags = {}", self.flags);
        }
        if let Some(n) = &self.note {
            let _ = writeln!(o, "note = {}", q(n));
        }
        if let Some(s) = self.expected_signature {
            let _ = writeln!(o, "signature = \"0x{s:08X}\"");
        }
        if let Some(h) = self.hash {
            let _ = writeln!(o, "hash = \"0x{h:08X}\"");
        }
        if let Some(s) = self.expected_size {
            let _ = writeln!(o, "size = 0x{s:X}");
        }
        if let Some(a) = self.align {
            let _ = writeln!(o, "align = {a}");
        }
        if let Some(p) = &self.pinned {
            let _ = writeln!(o, "\n[pinned]");
            let _ = writeln!(o, "signature = \"0x{:08X}\"", p.signature);
            let _ = writeln!(o, "reason = {}", q(&p.reason));
            let d: Vec<String> = p.doubtful.iter().map(|s| q(s)).collect();
            let _ = writeln!(o, "doubtful = [{}]", d.join(", "));
        }
        for e in &self.enums {
            let _ = writeln!(o, "\n[[enums]]");
            let _ = writeln!(o, "name = {}", q(&e.name));
            if e.flags != 0 {
                let _ = writeln!(o, "flags = {}", e.flags);
            }
            let _ = writeln!(o, "items = [");
            for i in &e.items {
                let _ = writeln!(o, "  {{ name = {}, value = {} }},", q(&i.name), i.value);
            }
            let _ = writeln!(o, "]");
        }
        for m in &self.members {
            let _ = writeln!(o, "\n[[members]]");
            let _ = writeln!(o, "name = {}", q(&m.name));
            let _ = writeln!(o, "type = {}", q(m.ty.name()));
            if m.subtype != crate::types::TypeKind::Void {
                let _ = writeln!(o, "subtype = {}", q(m.subtype.name()));
            }
            if m.element != crate::types::TypeKind::Void {
                let _ = writeln!(o, "element = {}", q(m.element.name()));
            }
            if let Some(c) = &m.class {
                let _ = writeln!(o, "class = {}", q(c));
            }
            if let Some(e) = &m.enum_ref {
                let _ = writeln!(o, "enum = {}", q(e));
            }
            if m.array_size != 0 {
                let _ = writeln!(o, "array_size = {}", m.array_size);
            }
            if m.flags != 0 {
                let (names, rest) = generation.flag_names(m.flags);
                if rest == 0 {
                    let n: Vec<String> = names.iter().map(|s| q(s)).collect();
                    let _ = writeln!(o, "flags = [{}]", n.join(", "));
                } else {
                    let _ = writeln!(o, "flags = {}", m.flags);
                }
            }
            if m.gap_before != 0 {
                let _ = writeln!(o, "gap_before = 0x{:X}", m.gap_before);
            }
            if let Some(off) = m.expected_offset {
                let _ = writeln!(o, "offset = 0x{off:X}");
            }
        }
        o
    }
}

impl Schema {
    /// Writes the schema as a folder: `generation.toml` and `classes/<Name>.toml`.
    ///
    /// Every class name is checked as a file name first ([`super::names::file_name`]):
    /// a schema with a name that would leave `classes/` writes nothing.
    ///
    /// # Errors
    /// A class name that is not one, or a folder or file that cannot be written, naming it.
    pub fn to_folder(&self, dir: impl AsRef<Path>) -> Result<()> {
        let dir = dir.as_ref();
        let classes = dir.join("classes");
        let names = self
            .classes()
            .iter()
            .map(|c| {
                super::names::file_name(&c.name, "toml")
                    .map_err(|m| crate::error::Error::schema(m).in_file(dir))
            })
            .collect::<Result<Vec<String>>>()?;
        let at = |p: &Path| {
            let p = p.to_path_buf();
            move |e: std::io::Error| crate::error::Error::from(e).in_file(p)
        };
        std::fs::create_dir_all(&classes).map_err(at(&classes))?;
        let generation = dir.join("generation.toml");
        std::fs::write(&generation, self.generation.to_toml()).map_err(at(&generation))?;
        for (c, name) in self.classes().iter().zip(names) {
            let file = classes.join(name);
            std::fs::write(&file, c.to_toml(&self.generation)).map_err(at(&file))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Class, Container, Generation, Schema};
    use crate::rules::{Endian, LayoutRules};

    fn schema(names: &[&str]) -> Schema {
        let generation = Generation {
            name: "g".into(),
            container: Container::Tagfile,
            file_version: 0,
            contents_version: String::new(),
            layout: LayoutRules {
                pointer_size: 8,
                endian: Endian::Little,
                reuse_padding: false,
                empty_base: true,
            },
            member_types: Vec::new(),
            member_flags: Vec::new(),
            packfile: Default::default(),
            tagfile: None,
        };
        Schema::new(generation, names.iter().map(|n| Class::new(*n)).collect()).unwrap()
    }

    #[test]
    fn a_class_name_that_is_no_file_name_writes_nothing() {
        let dir = std::env::temp_dir().join(format!("hk-to-folder-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // Names are checked when a schema is built; one changed afterwards is caught again
        // before it names a file.
        let mut s = schema(&["hkA", "hkB"]);
        s.class_mut(1).name = "../../escaped".into();
        let e = s.to_folder(dir.join("out")).unwrap_err();
        assert!(
            e.to_string().contains("class name \"../../escaped\""),
            "{e}"
        );
        assert!(!dir.exists(), "{} written", dir.display());
        schema(&["hkA", "hkB"]).to_folder(dir.join("out")).unwrap();
        assert!(dir.join("out/classes/hkB.toml").is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
