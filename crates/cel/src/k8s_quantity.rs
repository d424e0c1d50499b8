//! Kubernetes' `resource.Quantity` (`k8s.io/apimachinery/pkg/api/resource`) for the quantity
//! library: `ParseQuantity` with its suffixes (`Ki`..`Ei`, `n`..`E`, `e<n>`), rounding up to
//! nano precision and the binary cap, exact comparison, addition and subtraction, `AsInt64`,
//! `AsApproximateFloat64`, and Go's error texts. Values are exact decimals (arbitrary
//! precision), so `quantity("1e100")` compares exactly as Go's `inf.Dec` does.

use std::cmp::Ordering;
use std::fmt;

/// A quantity: an exact decimal `±digits × 10^exp`.
#[derive(Debug, Clone)]
pub struct Quantity {
    neg: bool,
    /// Decimal digits, least significant first, no trailing (most significant) zeros.
    digits: Vec<u8>,
    exp: i32,
    /// Whether Go holds it by pointer (the results of `add`/`sub`), which matters to its
    /// `Equal` (a pointer on the right is not a `Quantity`).
    pub by_pointer: bool,
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.cmp_value(other) == Ordering::Equal
    }
}

/// `ErrFormatWrong`.
pub const ERR_FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/// `ErrNumeric`.
pub const ERR_NUMERIC: &str = "unable to parse numeric part of quantity";
/// `ErrSuffix`.
pub const ERR_SUFFIX: &str = "unable to parse quantity's suffix";

struct Parts<'s> {
    positive: bool,
    value: &'s str,
    suffix: &'s str,
}

fn parse_quantity_string(s: &str) -> Result<Parts<'_>, &'static str> {
    let b = s.as_bytes();
    let end = b.len();
    let mut positive = true;
    let mut pos = 0;
    match b.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    // Leading zeros.
    loop {
        if pos >= end {
            return Ok(Parts {
                positive,
                value: "0",
                suffix: "",
            });
        }
        if b.get(pos) == Some(&b'0') {
            pos += 1;
        } else {
            break;
        }
    }
    while pos < end && b.get(pos).is_some_and(u8::is_ascii_digit) {
        pos += 1;
    }
    if pos >= end {
        return Ok(Parts {
            positive,
            value: s,
            suffix: "",
        });
    }
    if b.get(pos) == Some(&b'.') {
        pos += 1;
        while pos < end && b.get(pos).is_some_and(u8::is_ascii_digit) {
            pos += 1;
        }
        if pos >= end {
            return Ok(Parts {
                positive,
                value: s,
                suffix: "",
            });
        }
    }
    let value = s.get(..pos).unwrap_or("");
    let suffix_start = pos;
    while pos < end {
        if !b"eEinumkKMGTP".contains(&b.get(pos).copied().unwrap_or(0)) {
            break;
        }
        pos += 1;
    }
    if pos >= end {
        return Ok(Parts {
            positive,
            value,
            suffix: s.get(suffix_start..).unwrap_or(""),
        });
    }
    if matches!(b.get(pos), Some(b'-') | Some(b'+')) {
        pos += 1;
    }
    while pos < end {
        if !b.get(pos).is_some_and(u8::is_ascii_digit) {
            return Err(ERR_FORMAT_WRONG);
        }
        pos += 1;
    }
    Ok(Parts {
        positive,
        value,
        suffix: s.get(suffix_start..).unwrap_or(""),
    })
}

/// (base, exponent, binary).
fn interpret_suffix(s: &str) -> Option<(u32, i64, bool)> {
    Some(match s {
        "" => (10, 0, false),
        "n" => (10, -9, false),
        "u" => (10, -6, false),
        "m" => (10, -3, false),
        "k" => (10, 3, false),
        "M" => (10, 6, false),
        "G" => (10, 9, false),
        "T" => (10, 12, false),
        "P" => (10, 15, false),
        "E" => (10, 18, false),
        "Ki" => (2, 10, true),
        "Mi" => (2, 20, true),
        "Gi" => (2, 30, true),
        "Ti" => (2, 40, true),
        "Pi" => (2, 50, true),
        "Ei" => (2, 60, true),
        _ => {
            let rest = s.strip_prefix(['e', 'E'])?;
            if rest.is_empty() {
                return None;
            }
            let e: i64 = crd_studio_gostd::strconv::atoi(rest).ok()?;
            (10, i64::from(e as i32), false)
        }
    })
}

impl Quantity {
    fn zero() -> Quantity {
        Quantity {
            neg: false,
            digits: Vec::new(),
            exp: 0,
            by_pointer: false,
        }
    }

    fn normalize(mut self) -> Quantity {
        while self.digits.last() == Some(&0) {
            self.digits.pop();
        }
        let tz = self.digits.iter().take_while(|&&d| d == 0).count();
        if tz > 0 {
            self.digits.drain(..tz);
            self.exp += tz as i32;
        }
        if self.digits.is_empty() {
            self.neg = false;
            self.exp = 0;
        }
        self
    }

    /// `resource.ParseQuantity`.
    pub fn parse(s: &str) -> Result<Quantity, String> {
        if s.is_empty() {
            return Err(ERR_FORMAT_WRONG.into());
        }
        if s == "0" {
            return Ok(Quantity::zero());
        }
        let parts = parse_quantity_string(s).map_err(String::from)?;
        let (base, exponent, binary) =
            interpret_suffix(parts.suffix).ok_or_else(|| ERR_SUFFIX.to_string())?;
        // The value (sign, digits, '.', digits) as an exact decimal.
        let v = parts.value.trim_start_matches(['+', '-']);
        let (int_part, frac_part) = v.split_once('.').unwrap_or((v, ""));
        if !int_part
            .bytes()
            .chain(frac_part.bytes())
            .all(|c| c.is_ascii_digit())
        {
            return Err(ERR_NUMERIC.into());
        }
        let mut digits: Vec<u8> = int_part
            .bytes()
            .chain(frac_part.bytes())
            .rev()
            .map(|c| c - b'0')
            .collect();
        let mut exp = -(frac_part.len() as i32);
        if base == 10 {
            exp = exp.saturating_add(exponent as i32);
        } else {
            for _ in 0..exponent {
                mul_small(&mut digits, 2);
            }
        }
        let mut q = Quantity {
            neg: !parts.positive,
            digits,
            exp,
            by_pointer: false,
        }
        .normalize();
        // Round non-zero values up (away from zero) to nano precision.
        if !q.digits.is_empty() && q.exp < -9 {
            let drop = (-9 - q.exp) as usize;
            let nonzero_dropped = q.digits.iter().take(drop).any(|&d| d != 0);
            q.digits = q
                .digits
                .get(drop.min(q.digits.len())..)
                .unwrap_or(&[])
                .to_vec();
            q.exp = -9;
            if nonzero_dropped {
                add_one(&mut q.digits);
            }
            q = q.normalize();
        }
        // The binary format is capped at MaxInt64.
        if binary {
            let max = Quantity::from_i64(i64::MAX);
            let abs = Quantity {
                neg: false,
                ..q.clone()
            };
            if abs.cmp_value(&max) == Ordering::Greater {
                q = Quantity { neg: q.neg, ..max };
            }
        }
        Ok(q)
    }

    /// `resource.NewQuantity(i, DecimalExponent)`.
    pub fn from_i64(i: i64) -> Quantity {
        let mut digits = Vec::new();
        let mut u = i.unsigned_abs();
        while u > 0 {
            digits.push((u % 10) as u8);
            u /= 10;
        }
        Quantity {
            neg: i < 0,
            digits,
            exp: 0,
            by_pointer: false,
        }
        .normalize()
    }

    /// `Cmp`.
    pub fn cmp_value(&self, other: &Quantity) -> Ordering {
        match (self.sign(), other.sign()) {
            (a, b) if a != b => a.cmp(&b),
            (0, _) => Ordering::Equal,
            (s, _) => {
                let m = cmp_magnitude(self, other);
                if s < 0 {
                    m.reverse()
                } else {
                    m
                }
            }
        }
    }

    /// `Sign`.
    pub fn sign(&self) -> i64 {
        if self.digits.is_empty() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }

    /// `Add`.
    pub fn add(&self, other: &Quantity) -> Quantity {
        let exp = self.exp.min(other.exp);
        let a = shifted(self, exp);
        let b = shifted(other, exp);
        let (neg, digits) = if self.neg == other.neg {
            (self.neg, add_mag(&a, &b))
        } else {
            match cmp_digits(&a, &b) {
                Ordering::Less => (other.neg, sub_mag(&b, &a)),
                _ => (self.neg, sub_mag(&a, &b)),
            }
        };
        Quantity {
            neg,
            digits,
            exp,
            by_pointer: true,
        }
        .normalize()
        .pointer()
    }

    /// `Sub`.
    pub fn sub(&self, other: &Quantity) -> Quantity {
        let mut n = other.clone();
        if !n.digits.is_empty() {
            n.neg = !n.neg;
        }
        self.add(&n)
    }

    fn pointer(mut self) -> Quantity {
        self.by_pointer = true;
        self
    }

    /// `AsInt64`.
    pub fn as_i64(&self) -> Option<i64> {
        if self.exp < 0 {
            return None;
        }
        let mut v: i128 = 0;
        for &d in self.digits.iter().rev() {
            v = v.checked_mul(10)?.checked_add(i128::from(d))?;
            if v > i128::from(i64::MAX) + 1 {
                return None;
            }
        }
        for _ in 0..self.exp {
            v = v.checked_mul(10)?;
            if v > i128::from(i64::MAX) + 1 {
                return None;
            }
        }
        let v = if self.neg { -v } else { v };
        i64::try_from(v).ok()
    }

    /// `AsApproximateFloat64`.
    pub fn as_approximate_float(&self) -> f64 {
        let mut base = 0.0f64;
        for &d in self.digits.iter().rev() {
            base = base * 10.0 + f64::from(d);
        }
        if self.neg {
            base = -base;
        }
        if self.exp == 0 {
            return base;
        }
        base * 10f64.powi(self.exp)
    }
}

fn mul_small(d: &mut Vec<u8>, m: u32) {
    let mut carry = 0u32;
    for x in d.iter_mut() {
        let v = u32::from(*x) * m + carry;
        *x = (v % 10) as u8;
        carry = v / 10;
    }
    while carry > 0 {
        d.push((carry % 10) as u8);
        carry /= 10;
    }
}

fn add_one(d: &mut Vec<u8>) {
    for x in d.iter_mut() {
        if *x == 9 {
            *x = 0;
        } else {
            *x += 1;
            return;
        }
    }
    d.push(1);
}

fn shifted(q: &Quantity, exp: i32) -> Vec<u8> {
    let mut v = vec![0u8; (q.exp - exp).max(0) as usize];
    v.extend_from_slice(&q.digits);
    v
}

fn cmp_digits(a: &[u8], b: &[u8]) -> Ordering {
    let la = a.iter().rposition(|&d| d != 0).map_or(0, |p| p + 1);
    let lb = b.iter().rposition(|&d| d != 0).map_or(0, |p| p + 1);
    if la != lb {
        return la.cmp(&lb);
    }
    for i in (0..la).rev() {
        let (x, y) = (
            a.get(i).copied().unwrap_or(0),
            b.get(i).copied().unwrap_or(0),
        );
        if x != y {
            return x.cmp(&y);
        }
    }
    Ordering::Equal
}

fn cmp_magnitude(a: &Quantity, b: &Quantity) -> Ordering {
    let exp = a.exp.min(b.exp);
    cmp_digits(&shifted(a, exp), &shifted(b, exp))
}

fn add_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    let n = a.len().max(b.len());
    let mut out = Vec::with_capacity(n + 1);
    let mut carry = 0u8;
    for i in 0..n {
        let v = a.get(i).copied().unwrap_or(0) + b.get(i).copied().unwrap_or(0) + carry;
        out.push(v % 10);
        carry = v / 10;
    }
    if carry > 0 {
        out.push(carry);
    }
    out
}

/// `a - b` for `a >= b`.
fn sub_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i8;
    for (i, &x) in a.iter().enumerate() {
        let mut v = x as i8 - b.get(i).copied().unwrap_or(0) as i8 - borrow;
        if v < 0 {
            v += 10;
            borrow = 1;
        } else {
            borrow = 0;
        }
        out.push(v as u8);
    }
    out
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.digits.is_empty() {
            return f.write_str("0");
        }
        let mut s = String::new();
        if self.neg {
            s.push('-');
        }
        let digits: String = self
            .digits
            .iter()
            .rev()
            .map(|d| char::from(b'0' + d))
            .collect();
        if self.exp >= 0 {
            s.push_str(&digits);
            if self.exp > 0 {
                s.push_str(&format!("e{}", self.exp));
            }
        } else {
            let frac = (-self.exp) as usize;
            if digits.len() > frac {
                s.push_str(digits.get(..digits.len() - frac).unwrap_or(""));
                s.push('.');
                s.push_str(digits.get(digits.len() - frac..).unwrap_or(""));
            } else {
                s.push_str("0.");
                for _ in 0..frac - digits.len() {
                    s.push('0');
                }
                s.push_str(&digits);
            }
        }
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    #[test]
    fn parse_and_compare() {
        assert_eq!(q("0.2G"), q("200M"));
        assert_eq!(q("2M"), q("0.002G"));
        assert_eq!(q("2000k"), q("2M"));
        assert_eq!(q("1Ki"), q("1024"));
        assert_eq!(q("1e3"), q("1k"));
        assert_eq!(q("50k").add(&q("20")), q("50.02k"));
        assert_eq!(q("1").sub(&q("3")), q("-2"));
        assert_eq!(q("0.1n"), q("1n"));
        assert_eq!(q("-0.1n"), q("-1n"));
        assert!(q("100M").cmp_value(&q("20Mi")) == Ordering::Greater);
        assert_eq!(q("20Mi").as_i64(), Some(20 * 1024 * 1024));
        assert_eq!(q("1.5").as_i64(), None);
        assert_eq!(q("1.5").as_approximate_float(), 1.5);
        assert_eq!(q("-3m").sign(), -1);
    }

    #[test]
    fn parse_errors() {
        assert_eq!(Quantity::parse("").unwrap_err(), ERR_FORMAT_WRONG);
        assert_eq!(Quantity::parse("1Q").unwrap_err(), ERR_FORMAT_WRONG);
        assert_eq!(Quantity::parse("1Ki2").unwrap_err(), ERR_SUFFIX);
        assert_eq!(Quantity::parse("1kk").unwrap_err(), ERR_SUFFIX);
        assert!(Quantity::parse("1e").is_err());
    }
}
