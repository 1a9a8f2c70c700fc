//! Monotonic counters and their measurement windows.
//!
//! Counters only grow; a measurement window is the difference of the counters at its end and a
//! snapshot taken when it started (`at_warmup`: links and UDP flows), or the counters themselves
//! when they restart from zero at its start (a TCP flow's endpoints, `Sim::start_measurement`). [`counters!`] declares such a struct once - each
//! counter with its unit and doc - and derives both the subtraction and the result columns.
//!
//! [`counters!`]: crate::counters!

/// Snapshot-and-subtract.
pub trait Counters: Copy {
    /// `self - earlier`, field by field (`earlier` is an older snapshot of the same counters).
    fn minus(&self, earlier: &Self) -> Self;
}

/// Declare a struct of `u64` counters: `/// doc` `name: "unit",` per field. Generates the struct,
/// [`Counters`], and `columns(get)`, one result column per counter read through `get`.
#[macro_export]
macro_rules! counters {
    ($(#[$m:meta])* pub struct $name:ident { $( $(#[doc = $doc:literal])* $field:ident : $unit:literal ),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name { $( $(#[doc = $doc])* pub $field: u64, )* }

        impl $crate::metrics::Counters for $name {
            fn minus(&self, earlier: &Self) -> Self {
                $name { $( $field: self.$field - earlier.$field, )* }
            }
        }

        impl $name {
            /// One result column per counter, read from a row through `get`.
            pub fn columns<'a, T: 'a>(get: fn(&T) -> $name) -> Vec<$crate::result::Col<'a, T>> {
                vec![ $( $crate::result::Col::u64(stringify!($field), $unit, &[$($doc),*], move |r: &T| get(r).$field), )* ]
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::Counters;

    crate::counters! {
        /// Two counters.
        pub struct Demo {
            /// Packets.
            pkts: "pkts",
            /// Bytes.
            bytes: "bytes",
        }
    }

    #[test]
    fn window_is_the_difference_and_columns_are_described() {
        let start = Demo { pkts: 3, bytes: 300 };
        let end = Demo { pkts: 10, bytes: 1000 };
        assert_eq!(end.minus(&start), Demo { pkts: 7, bytes: 700 });
        let cols = Demo::columns::<Demo>(|d| *d);
        assert_eq!(cols.iter().map(|c| (c.spec.name, c.spec.unit, c.spec.doc.as_str())).collect::<Vec<_>>(), [("pkts", "pkts", "Packets."), ("bytes", "bytes", "Bytes.")]);
    }
}
