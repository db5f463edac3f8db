//! World matrices: each object's parent world * T * R * S, multiplied from
//! the root down, one at a time or for every slot, and their inverses.

use std::collections::HashMap;

use nalgebra::Matrix4;

use super::Scene;

impl Scene {
    /// World matrix of object `i`: parent world * T * R * S, multiplied
    /// from the root down as [`Scene::world_matrices`] does, so that both
    /// give the same bits (the pick boxes derived from one match what is
    /// drawn from the other).
    #[inline]
    pub fn world_matrix(&self, i: usize) -> Matrix4<f64> {
        let local = self.obj(i).transform.matrix();
        // A root's is its own (most objects of a large scene): no walk.
        if self.hierarchy.parent(i).is_none() {
            return local;
        }
        self.world_below_parent(i, local)
    }

    /// [`Scene::world_matrix`] of an object with a parent, its own matrix
    /// `local` made.
    fn world_below_parent(&self, i: usize, local: Matrix4<f64>) -> Matrix4<f64> {
        // The nearest ancestors on the stack (no allocation for a pick box
        // derived under a parent), any beyond them in a list.
        let mut near = [0usize; 16];
        let mut n = 0;
        let mut far: Vec<usize> = Vec::new();
        for p in self.hierarchy.ancestors(i) {
            if n < near.len() {
                near[n] = p;
                n += 1;
            } else {
                far.push(p);
            }
        }
        let mut world: Option<Matrix4<f64>> = None;
        for &p in far.iter().rev().chain(near[..n].iter().rev()) {
            let m = self.obj(p).transform.matrix();
            world = Some(world.map_or(m, |w| w * m));
        }
        world.map_or(local, |w| w * local)
    }

    /// Inverse of [`Scene::world_matrix`], from each transform's closed-form
    /// inverse (`None` for a zero scale on the way).
    pub fn world_inverse(&self, i: usize) -> Option<Matrix4<f64>> {
        let mut inv = self.obj(i).transform.inverse_matrix()?;
        for p in self.hierarchy.ancestors(i) {
            inv *= self.obj(p).transform.inverse_matrix()?;
        }
        Some(inv)
    }

    /// World matrix of the parent of `i` (identity for a root).
    pub fn parent_world_matrix(&self, i: usize) -> Matrix4<f64> {
        self.parent(i).map_or_else(Matrix4::identity, |p| self.world_matrix(p))
    }

    /// The world matrix of every slot (index = id), each parent computed
    /// once; a dead slot's is the zero matrix (no object, nothing to draw).
    pub fn world_matrices(&self) -> Vec<Matrix4<f64>> {
        self.world_matrices_iter().collect()
    }

    /// [`Scene::world_matrices`] one slot at a time: only parents' are kept
    /// (for their other descendants), so a flat scene holds none.
    pub fn world_matrices_iter(&self) -> impl ExactSizeIterator<Item = Matrix4<f64>> + '_ {
        let mut kept = HashMap::new();
        (0..self.objects.len()).map(move |i| match self.objects[i] {
            Some(_) => self.world_kept(i, &mut kept),
            None => Matrix4::zeros(),
        })
    }

    fn world_kept(&self, i: usize, kept: &mut HashMap<usize, Matrix4<f64>>) -> Matrix4<f64> {
        let local = self.obj(i).transform.matrix();
        let Some(p) = self.parent(i) else { return local };
        let parent = match kept.get(&p) {
            Some(m) => *m,
            None => {
                let m = self.world_kept(p, kept);
                kept.insert(p, m);
                m
            }
        };
        parent * local
    }
}
