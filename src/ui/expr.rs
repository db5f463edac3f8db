//! Typed numbers (`docs/spec/organise.md`): the arithmetic a number field
//! accepts, read by a small recursive-descent parser.
//!
//! ```text
//! input   = ["="] sum
//! sum     = product { ("+" | "-") product }
//! product = unary { ("*" | "/") unary }
//! unary   = ("-" | "+") unary | primary
//! primary = number | "(" sum ")"
//! number  = digits [("." | ",") digits]   (digits on at least one side)
//! ```
//!
//! Whitespace between and inside tokens is ignored (as egui's own parser
//! ignores thousands separators), and the minus sign U+2212 reads as `-`.

/// The value of `text`, or why it cannot be read: an unknown character, a
/// number with two separators, an unbalanced parenthesis, a division by
/// zero or a result that is not finite.
pub fn eval(text: &str) -> Result<f64, String> {
    let chars: Vec<char> =
        text.chars().filter(|c| !c.is_whitespace()).map(|c| if c == '\u{2212}' { '-' } else { c }).collect();
    let mut p = Parser { chars: &chars, at: 0 };
    p.eat('=');
    if p.peek().is_none() {
        return Err("nothing to read".into());
    }
    let v = p.sum()?;
    if let Some(c) = p.peek() {
        return Err(format!("unexpected '{c}'"));
    }
    finite(v)
}

fn finite(v: f64) -> Result<f64, String> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err("the result is not a finite number".into())
    }
}

struct Parser<'a> {
    chars: &'a [char],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// Steps over `c` if it comes next.
    fn eat(&mut self, c: char) -> bool {
        let found = self.peek() == Some(c);
        if found {
            self.at += 1;
        }
        found
    }

    fn sum(&mut self) -> Result<f64, String> {
        let mut v = self.product()?;
        loop {
            if self.eat('+') {
                v = finite(v + self.product()?)?;
            } else if self.eat('-') {
                v = finite(v - self.product()?)?;
            } else {
                return Ok(v);
            }
        }
    }

    fn product(&mut self) -> Result<f64, String> {
        let mut v = self.unary()?;
        loop {
            if self.eat('*') {
                v = finite(v * self.unary()?)?;
            } else if self.eat('/') {
                let d = self.unary()?;
                if d == 0.0 {
                    return Err("division by zero".into());
                }
                v = finite(v / d)?;
            } else {
                return Ok(v);
            }
        }
    }

    fn unary(&mut self) -> Result<f64, String> {
        if self.eat('-') {
            Ok(-self.unary()?)
        } else if self.eat('+') {
            self.unary()
        } else {
            self.primary()
        }
    }

    fn primary(&mut self) -> Result<f64, String> {
        if self.eat('(') {
            let v = self.sum()?;
            if !self.eat(')') {
                return Err("missing ')'".into());
            }
            return Ok(v);
        }
        let start = self.at;
        let mut text = String::new();
        let mut separator = false;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() {
                text.push(c);
            } else if c == '.' || c == ',' {
                if separator {
                    return Err("a number with two decimal separators".into());
                }
                separator = true;
                text.push('.');
            } else {
                break;
            }
            self.at += 1;
        }
        if !text.chars().any(|c| c.is_ascii_digit()) {
            return Err(match self.chars.get(start) {
                Some(c) if self.at == start => format!("unexpected '{c}'"),
                Some(_) => "a separator without digits".into(),
                None => "a number is missing at the end".into(),
            });
        }
        // Digits with at most one '.' always parse.
        let v: f64 = text.parse().map_err(|_| format!("cannot read '{text}'"))?;
        finite(v)
    }
}

#[cfg(test)]
mod tests {
    use super::eval;

    #[test]
    fn expr_examples_of_the_spec() {
        assert_eq!(eval("1+2"), Ok(3.0));
        assert_eq!(eval("=2*3"), Ok(6.0));
        assert_eq!(eval("-(0.5+1)/2"), Ok(-0.75));
        assert_eq!(eval("2,5"), Ok(2.5));
    }

    #[test]
    fn expr_plain_numbers_and_spaces() {
        assert_eq!(eval("7"), Ok(7.0));
        assert_eq!(eval(" 1 234,5 "), Ok(1234.5));
        assert_eq!(eval(".5"), Ok(0.5));
        assert_eq!(eval("3."), Ok(3.0));
        assert_eq!(eval("\u{2212}1.25"), Ok(-1.25));
        assert_eq!(eval("= 4"), Ok(4.0));
        assert_eq!(eval("--2"), Ok(2.0));
        assert_eq!(eval("+2"), Ok(2.0));
    }

    #[test]
    fn expr_precedence_and_associativity() {
        assert_eq!(eval("1+2*3"), Ok(7.0));
        assert_eq!(eval("(1+2)*3"), Ok(9.0));
        assert_eq!(eval("8-2-1"), Ok(5.0));
        assert_eq!(eval("8/2/2"), Ok(2.0));
        assert_eq!(eval("2*-3"), Ok(-6.0));
        assert_eq!(eval("-2*3+1"), Ok(-5.0));
        assert_eq!(eval("1,5+2,5"), Ok(4.0));
        assert_eq!(eval("((2))"), Ok(2.0));
    }

    #[test]
    fn expr_division_by_zero_is_refused() {
        assert!(eval("1/0").is_err());
        assert!(eval("1/(2-2)").is_err());
        assert!(eval("0/0").is_err());
    }

    #[test]
    fn expr_garbage_is_refused() {
        for text in
            ["", " ", "=", "abc", "1+", "*2", "(1+2", "1+2)", "1..2", "1,2,3", "1.2,3", "2 x", "1e3", ",", "()", "=="]
        {
            assert!(eval(text).is_err(), "{text:?} was read as {:?}", eval(text));
        }
    }

    #[test]
    fn expr_non_finite_results_are_refused() {
        let big = "9".repeat(400);
        assert!(eval(&big).is_err());
        let near = format!("1{}", "0".repeat(300));
        assert!(eval(&format!("{near}*{near}")).is_err());
        assert!(eval(&format!("-{near}*{near}")).is_err());
    }
}
