//! The engine's fingerprint: FNV-1a (64 bit) over this crate's `Cargo.toml` and every file
//! under `src/`, in path order. Result stores key runs by it (with the package version), so a
//! store never serves a run computed by a different engine. Any edit of the sources changes it,
//! comments included: the build cannot tell which edits change results.

use std::fs;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir).expect("read src").map(|e| e.expect("dir entry").path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn fnv1a(hash: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *hash ^= b as u64;
        *hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("manifest dir"));
    let mut all = vec![root.join("Cargo.toml")];
    files(&root.join("src"), &mut all);
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for p in &all {
        let rel = p.strip_prefix(&root).expect("under the crate").to_string_lossy().replace('\\', "/");
        fnv1a(&mut hash, rel.as_bytes());
        fnv1a(&mut hash, &[0]);
        fnv1a(&mut hash, &fs::read(p).expect("read source"));
        fnv1a(&mut hash, &[0]);
    }
    println!("cargo:rustc-env=CROSSLAYER_ENGINE_FINGERPRINT={hash:016x}");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
}
