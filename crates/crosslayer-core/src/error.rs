//! How a run fails. Each kind is the user's to fix differently, so each reaches Python as its
//! own exception (`crates/crosslayer-py`): an invalid scenario is a `ValueError` naming the
//! fields; a limit reached or memory lacking is a `LimitError` naming the limit and the fix; an
//! interrupt is a `KeyboardInterrupt`; a failed self-check of the engine is a `SimulatorBug`.

use std::fmt;

/// Why a run did not produce results.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// The scenario is invalid: a value out of its range, a relation broken, a name unknown.
    /// The message names every field.
    Invalid(String),
    /// A limit was reached: one the scenario set (`limits.max_events`) or a fixed one (packets
    /// alive at once). The message names it and how to raise it.
    Limit(String),
    /// Not enough memory for what the scenario asks (traces, packets alive); the message says how
    /// much and what to change.
    OutOfMemory(String),
    /// The run's `stop` callback asked it to stop (a user's interrupt).
    Interrupted,
    /// A check the engine makes on itself failed (a queue identity, per-flow conservation): a
    /// simulator bug, to be reported with the study file.
    Bug(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid(m) | Error::Limit(m) | Error::OutOfMemory(m) | Error::Bug(m) => f.write_str(m),
            Error::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// Whether the message contains `text` (tests and callers that look for a field or a limit).
    pub fn contains(&self, text: &str) -> bool {
        self.to_string().contains(text)
    }

    /// Stop the run with this error from deep in the hot path, where returning a `Result`
    /// would cost every packet: the run's caller catches the unwind and gets the error back
    /// (`crosslayer-py` maps it to its exception, never to a "simulator bug").
    pub fn raise(self) -> ! {
        std::panic::panic_any(self)
    }

    /// The error a caught unwind carries, if it was raised by [`Error::raise`].
    pub fn from_panic(payload: &(dyn std::any::Any + Send)) -> Option<Error> {
        payload.downcast_ref::<Error>().cloned()
    }
}
