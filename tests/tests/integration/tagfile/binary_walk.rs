//! Shared by the binary tagfile tests: the corpus files, and a second, minimal reading of
//! the format (docs/binary-tagfile-format.md), independent of the reader under test, that
//! places mutations and counts records.

use hk_runtime::packfile::graph::read::ReadOptions;
pub use hk_tests::hostile::varint;

/// The 11 corpus binary tagfiles.
pub const FILES: [&str; 11] = [
    SKELETON,
    "games/ffxiv-and-xat-tests/animation.hkt",
    BLANK,
    "games/ffxiv-and-xat-tests/combined.hkt",
    "games/project-anarchy-sample/HAT__Behaviors__Export__Character_Behavior.hkt",
    CHARACTER,
    HAT,
    NAVMESH,
    "games/project-anarchy-sample/Meshes__RL_Pillar.vmesh_data__C_0.01_0.01_0.01.hkt",
    MESH,
    "games/project-anarchy-sample/Models__Character__Animations__RL_Character_Attack.hkt",
];
pub const SKELETON: &str = "games/ffxiv-and-xat-tests/skeleton.hkt";
pub const BLANK: &str = "games/ffxiv-and-xat-tests/blank.hkt";
pub const HAT: &str = "games/project-anarchy-sample/HAT__Export__RL_Character_HAT.hkt";
pub const CHARACTER: &str =
    "games/project-anarchy-sample/HAT__Characters__Export__RL_Character.hkt";
pub const NAVMESH: &str =
    "games/project-anarchy-sample/Scenes__sample.NavMeshData__navmesh_BB7A1B0500000002.hkt";
pub const MESH: &str =
    "games/project-anarchy-sample/Meshes__RL_FullLevel.vmesh_data__M_0.01_0.01_0.01_1_0.hkt";

pub fn strict() -> ReadOptions {
    ReadOptions::strict()
}

pub fn lenient() -> ReadOptions {
    ReadOptions::lenient()
}

/// One thing the walk saw: what, where, how many bytes, and the number it holds (a
/// string's length field for strings).
#[derive(Clone, Copy, Debug)]
pub struct Ev {
    pub kind: &'static str,
    pub at: usize,
    pub len: usize,
    pub value: i64,
}

#[derive(Clone, Debug)]
pub struct Member {
    code: i64,
    tuple: i64,
    class: Option<String>,
}

/// A second, minimal reading of the format, for placing mutations and counting records.
pub struct Walk<'a> {
    b: &'a [u8],
    /// Where the end tag ends.
    pub p: usize,
    pub evs: Vec<Ev>,
    pub strings: Vec<Option<Vec<u8>>>,
    pub classes: Vec<(String, usize, Vec<Member>)>,
    pub objects: usize,
}

impl<'a> Walk<'a> {
    pub fn new(b: &'a [u8]) -> Walk<'a> {
        let mut w = Walk {
            b,
            p: 8,
            evs: Vec::new(),
            strings: vec![Some(Vec::new()), None],
            classes: Vec::new(),
            objects: 0,
        };
        w.run();
        w
    }

    fn int(&mut self, kind: &'static str) -> i64 {
        let at = self.p;
        let mut b = self.b[self.p];
        self.p += 1;
        let neg = b & 1 != 0;
        let mut m = u64::from((b & 0x7E) >> 1);
        let mut shift = 6;
        while b & 0x80 != 0 {
            b = self.b[self.p];
            self.p += 1;
            m |= u64::from(b & 0x7F) << shift;
            shift += 7;
        }
        let v = if neg { -(m as i64) } else { m as i64 };
        self.evs.push(Ev {
            kind,
            at,
            len: self.p - at,
            value: v,
        });
        v
    }

    fn string(&mut self, kind: &'static str) -> Option<Vec<u8>> {
        let n = self.int(kind);
        if n > 0 {
            let s = self.b[self.p..self.p + n as usize].to_vec();
            self.p += n as usize;
            self.strings.push(Some(s.clone()));
            Some(s)
        } else {
            self.strings[(-n) as usize].clone()
        }
    }

    fn skip(&mut self, kind: &'static str, n: usize) {
        self.evs.push(Ev {
            kind,
            at: self.p,
            len: n,
            value: 0,
        });
        self.p += n;
    }

    fn run(&mut self) {
        loop {
            match self.int("tag") {
                1 => {
                    let v = self.int("version");
                    if v >= 4 {
                        self.string("sdk");
                    }
                    if v >= 5 {
                        let n = u16::from_le_bytes([self.b[self.p + 2], self.b[self.p + 3]]);
                        self.p += 4 + 2 * n as usize;
                    }
                }
                2 => {
                    let name = String::from_utf8(self.string("class_name").unwrap()).unwrap();
                    self.int("class_version");
                    let parent = self.int("parent") as usize;
                    let n = self.int("member_count");
                    let mut ms = Vec::new();
                    for _ in 0..n {
                        self.string("member_name");
                        let code = self.int("type_code");
                        let tuple = if code & 0x20 != 0 {
                            self.int("tuple_count")
                        } else {
                            0
                        };
                        let class = if matches!(code & 0xF, 8 | 9) {
                            self.string("member_class")
                                .map(|s| String::from_utf8(s).unwrap())
                        } else {
                            None
                        };
                        ms.push(Member { code, tuple, class });
                    }
                    self.classes.push((name, parent, ms));
                }
                4 => {
                    self.objects += 1;
                    let c = self.int("object_class") as usize - 1;
                    self.body(c);
                }
                7 => return,
                t => panic!("walk: tag {t}"),
            }
        }
    }

    fn flat(&self, c: usize) -> Vec<Member> {
        let mut chain = vec![c];
        while self.classes[*chain.last().unwrap()].1 != 0 {
            chain.push(self.classes[*chain.last().unwrap()].1 - 1);
        }
        chain
            .iter()
            .rev()
            .flat_map(|&c| self.classes[c].2.clone())
            .collect()
    }

    fn class(&self, name: &str) -> usize {
        self.classes.iter().position(|c| c.0 == name).unwrap()
    }

    fn bits(&mut self, n: usize) -> Vec<bool> {
        let bytes = n.div_ceil(8);
        let raw = self.b[self.p..self.p + bytes].to_vec();
        self.skip("bitfield", bytes);
        (0..n).map(|i| raw[i / 8] >> (i % 8) & 1 != 0).collect()
    }

    fn body(&mut self, c: usize) {
        let ms = self.flat(c);
        let present = self.bits(ms.len());
        for (m, p) in ms.iter().zip(present) {
            if p {
                self.value(m);
            }
        }
    }

    fn value(&mut self, m: &Member) {
        if m.code & 0x20 != 0 {
            self.items(m, m.tuple as usize);
        } else if m.code & 0x10 != 0 {
            let n = self.int("array_count");
            self.items(m, n as usize);
        } else {
            match m.code & 0xF {
                1 => self.skip("byte", 1),
                2 => {
                    self.int("int");
                }
                3 => self.skip("real", 4),
                b @ 4..=7 => self.skip("floats", 16 * (b as usize - 3)),
                8 => {
                    self.int("ref");
                }
                9 => {
                    let c = self.class(m.class.as_deref().unwrap());
                    self.body(c);
                }
                10 => {
                    self.string("value_string");
                }
                b => panic!("walk: scalar {b}"),
            }
        }
    }

    fn items(&mut self, m: &Member, n: usize) {
        match m.code & 0xF {
            1 => self.skip("bytes", n),
            2 => {
                self.int("int_width");
                for _ in 0..n {
                    self.int("int_item");
                }
            }
            3 => self.skip("reals", 4 * n),
            4 => {
                let w = self.int("vec_width") as usize;
                self.skip("vectors", 4 * w * n);
            }
            b @ 5..=7 => self.skip("vectors", 16 * (b as usize - 3) * n),
            8 => {
                for _ in 0..n {
                    self.int("ref");
                }
            }
            10 => {
                for _ in 0..n {
                    self.string("value_string");
                }
            }
            9 => {
                let c = self.class(m.class.as_deref().unwrap());
                let ms = self.flat(c);
                let present = self.bits(ms.len());
                for (mm, p) in ms.iter().zip(present) {
                    if !p {
                        continue;
                    }
                    if mm.code & 0x30 != 0 {
                        for _ in 0..n {
                            self.value(mm);
                        }
                    } else {
                        self.items(mm, n);
                    }
                }
            }
            b => panic!("walk: items {b}"),
        }
    }

    /// The first event of `kind` satisfying `pred`.
    pub fn find(&self, kind: &str, pred: impl Fn(&Ev) -> bool) -> Ev {
        *self
            .evs
            .iter()
            .find(|e| e.kind == kind && pred(e))
            .unwrap_or_else(|| panic!("no {kind} event"))
    }

    /// The table index of string `s`.
    pub fn index_of(&self, s: &str) -> i64 {
        self.strings
            .iter()
            .position(|x| x.as_deref() == Some(s.as_bytes()))
            .unwrap() as i64
    }
}

pub fn splice(data: &[u8], at: usize, len: usize, with: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    out.splice(at..at + len, with.iter().copied());
    out
}

pub fn replace(data: &[u8], e: Ev, with: &[u8]) -> Vec<u8> {
    splice(data, e.at, e.len, with)
}

pub fn corpus_file(name: &str) -> Option<Vec<u8>> {
    let corpus = hk_tests::corpus(name)?;
    Some(hk_tests::read(&corpus.join(name)))
}
