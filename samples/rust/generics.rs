//! Generics, traits (static and dynamic dispatch), closures, iterators, enums with data and
//! `match`: what monomorphization makes of them.

pub trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> &'static str {
        "shape"
    }
}

pub struct Rect {
    pub w: f64,
    pub h: f64,
}

pub struct Circle(pub f64);

impl Shape for Rect {
    fn area(&self) -> f64 {
        self.w * self.h
    }
    fn name(&self) -> &'static str {
        "rect"
    }
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        3.14159 * self.0 * self.0
    }
}

pub enum Op {
    Push(i64),
    Add,
    Mul,
    Neg,
}

pub fn eval(ops: &[Op]) -> Option<i64> {
    let mut stack = Vec::with_capacity(ops.len());
    for op in ops {
        match op {
            Op::Push(v) => stack.push(*v),
            Op::Add => {
                let (b, a) = (stack.pop()?, stack.pop()?);
                stack.push(a.wrapping_add(b));
            }
            Op::Mul => {
                let (b, a) = (stack.pop()?, stack.pop()?);
                stack.push(a.wrapping_mul(b));
            }
            Op::Neg => {
                let a = stack.pop()?;
                stack.push(-a);
            }
        }
    }
    stack.pop()
}

pub fn total_area(shapes: &[Box<dyn Shape>]) -> f64 {
    shapes.iter().map(|s| s.area()).sum()
}

pub fn largest<T: PartialOrd + Copy>(items: &[T]) -> Option<T> {
    let mut it = items.iter().copied();
    let first = it.next()?;
    Some(it.fold(first, |m, x| if x > m { x } else { m }))
}

#[no_mangle]
pub extern "C" fn run(seed: i64) -> f64 {
    let shapes: Vec<Box<dyn Shape>> = vec![
        Box::new(Rect { w: 2.0, h: seed as f64 }),
        Box::new(Circle(0.5)),
    ];
    let ops = [Op::Push(seed), Op::Push(3), Op::Mul, Op::Neg, Op::Push(1), Op::Add];
    let evens: Vec<i64> = (0..seed).filter(|x| x % 2 == 0).map(|x| x * x).collect();
    let best = largest(&evens).unwrap_or(0) + largest(&[1u8, 9, 3]).map_or(0, i64::from);
    total_area(&shapes) + eval(&ops).unwrap_or(0) as f64 + best as f64
}
