//! A ring buffer of `Copy` values: push at the back, pop at the front, each a mask and a store
//! (the standard `VecDeque` does the same work, but its push is not reliably inlined into the
//! engine's forwarding path). It doubles when full; queues reserve their limit, so that is rare.

#[derive(Clone, Debug)]
pub struct Ring<T> {
    /// Power-of-two capacity.
    buf: Box<[T]>,
    head: usize,
    len: usize,
}

impl<T: Copy + Default> Default for Ring<T> {
    /// Empty, with no room yet: the first push makes room for 4 (a flow's scoreboard that never
    /// sends holds no buffer, issue 21's memory per flow).
    fn default() -> Self {
        Ring { buf: Box::new([]), head: 0, len: 0 }
    }
}

impl<T: Copy + Default> Ring<T> {
    /// Room for at least `n` values before it grows.
    pub fn with_capacity(n: usize) -> Ring<T> {
        Ring { buf: vec![T::default(); n.max(4).next_power_of_two()].into_boxed_slice(), head: 0, len: 0 }
    }

    #[inline(always)]
    pub fn push_back(&mut self, v: T) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let i = (self.head + self.len) & (self.buf.len() - 1);
        self.buf[i] = v;
        self.len += 1;
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.buf[self.head];
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
        Some(v)
    }

    /// The front value, taken out if `take(front)`.
    #[inline(always)]
    pub fn pop_front_if(&mut self, take: impl FnOnce(&T) -> bool) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let mask = self.buf.len() - 1;
        let v = self.buf[self.head & mask];
        if !take(&v) {
            return None;
        }
        self.head = (self.head + 1) & mask;
        self.len -= 1;
        Some(v)
    }

    /// The front value, not copied.
    #[inline(always)]
    pub fn front_ref(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        self.buf.get(self.head)
    }

    #[inline(always)]
    pub fn front(&self) -> Option<T> {
        (self.len > 0).then(|| self.buf[self.head])
    }

    #[inline(always)]
    pub fn back(&self) -> Option<T> {
        (self.len > 0).then(|| self.buf[(self.head + self.len - 1) & (self.buf.len() - 1)])
    }

    /// The back value, taken out.
    #[inline(always)]
    pub fn pop_back(&mut self) -> Option<T> {
        let v = self.back()?;
        self.len -= 1;
        Some(v)
    }

    /// Insert `v` at position `at` (0 = the front), moving the values behind it back: O(n),
    /// for the rare caller that keeps an order of its own (a pipe that reorders).
    #[cold]
    pub fn insert(&mut self, at: usize, v: T) {
        assert!(at <= self.len, "insert past the end of a ring");
        self.push_back(v);
        let mask = self.buf.len() - 1;
        let mut k = self.len - 1;
        while k > at {
            self.buf.swap((self.head + k) & mask, (self.head + k - 1) & mask);
            k -= 1;
        }
    }

    /// Empty it (keeping its room).
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value at position `k` (0 = the front).
    #[inline]
    pub fn get(&self, k: usize) -> Option<T> {
        (k < self.len).then(|| self.buf[(self.head + k) & (self.buf.len() - 1)])
    }

    /// Drop the `n` values at the front (there are at least `n`).
    #[inline(always)]
    pub fn advance(&mut self, n: usize) {
        assert!(n <= self.len, "advance past the end of a ring");
        if n > 0 {
            self.head = (self.head + n) & (self.buf.len() - 1);
            self.len -= n;
        }
    }

    /// Front to back, by reference.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> + '_ {
        let (head, len) = (self.head, self.len);
        let (back, front) = self.buf.split_at_mut(head);
        let first = front.len().min(len);
        front[..first].iter_mut().chain(back[..len - first].iter_mut())
    }

    /// Front to back (the ring's two runs, each a plain slice: what iterates by `fold`, as
    /// `for_each` and `count` do, is two loops without a mask or bounds check per value).
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        let (head, len) = (self.head, self.len);
        let (back, front) = self.buf.split_at(head);
        let first = front.len().min(len);
        front[..first].iter().chain(back[..len - first].iter()).copied()
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let mut buf = vec![T::default(); (self.buf.len() * 2).max(4)].into_boxed_slice();
        for (k, v) in self.iter().enumerate() {
            buf[k] = v;
        }
        self.buf = buf;
        self.head = 0;
    }
}

impl<T: Copy + Default> std::ops::Index<usize> for Ring<T> {
    type Output = T;
    /// The value at position `k` (0 = the front); panics past the end, as a slice does.
    #[inline(always)]
    fn index(&self, k: usize) -> &T {
        assert!(k < self.len, "index {k} past the end of a ring of {}", self.len);
        &self.buf[(self.head + k) & (self.buf.len() - 1)]
    }
}

impl<T: Copy + Default> std::ops::IndexMut<usize> for Ring<T> {
    #[inline(always)]
    fn index_mut(&mut self, k: usize) -> &mut T {
        assert!(k < self.len, "index {k} past the end of a ring of {}", self.len);
        let mask = self.buf.len() - 1;
        &mut self.buf[(self.head + k) & mask]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// A new ring holds no buffer until its first push, and works from empty.
    #[test]
    fn a_new_ring_allocates_at_its_first_push() {
        let mut r: Ring<u64> = Ring::default();
        assert_eq!((r.buf.len(), r.len(), r.front(), r.back(), r.get(0)), (0, 0, None, None, None));
        assert_eq!((r.pop_front(), r.pop_back(), r.iter().count(), r.iter_mut().count()), (None, None, 0, 0));
        r.advance(0);
        r.clear();
        r.push_back(7);
        assert_eq!((r.buf.len(), r.len(), r[0]), (4, 1, 7));
    }

    /// Against `VecDeque` on a long random sequence of pushes and pops that wraps and grows.
    #[test]
    fn behaves_as_a_deque() {
        for mut r in [Ring::<u32>::with_capacity(2), Ring::default()] {
            deque_run(&mut r);
        }
    }

    fn deque_run(r: &mut Ring<u32>) {
        let mut d = VecDeque::new();
        let mut lcg = crate::rng::Lcg(12345);
        for k in 0..100_000u32 {
            let x = lcg.next();
            match (x >> 33) % 11 {
                0..=2 => assert_eq!(r.pop_front(), d.pop_front()),
                3 => assert_eq!(r.pop_back(), d.pop_back()),
                4 => {
                    let at = (x >> 40) as usize % (d.len() + 1);
                    r.insert(at, k);
                    d.insert(at, k);
                }
                5 if k % 97 == 0 => {
                    r.clear();
                    d.clear();
                }
                6 if !d.is_empty() => {
                    let n = (x >> 44) as usize % (d.len() + 1);
                    r.advance(n);
                    d.drain(..n);
                }
                7 if !d.is_empty() => {
                    let at = (x >> 44) as usize % d.len();
                    r[at] += 1;
                    d[at] += 1;
                    assert_eq!(r[at], d[at]);
                }
                8 if k % 13 == 0 => {
                    r.iter_mut().for_each(|v| *v ^= 1);
                    d.iter_mut().for_each(|v| *v ^= 1);
                }
                _ => {
                    r.push_back(k);
                    d.push_back(k);
                }
            }
            assert_eq!((r.len(), r.front(), r.back()), (d.len(), d.front().copied(), d.back().copied()));
            let probe = (x >> 20) as usize % (d.len() + 2);
            assert_eq!(r.get(probe), d.get(probe).copied());
            assert!(r.iter().eq(d.iter().copied()));
        }
    }
}
