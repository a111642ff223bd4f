package dev.tandem.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class EditDistanceTest {
  @Test
  void countsInsertionsDeletionsAndSubstitutions() {
    assertEquals(0, EditDistance.between("image", "image"));
    assertEquals(1, EditDistance.between("imagePullPolice", "imagePullPolicy"));
    assertEquals(1, EditDistance.between("gpu-a-1", "gpu-a-12"));
    assertEquals(1, EditDistance.between("gpu-a-12", "gpu-a-1"));
    assertEquals(3, EditDistance.between("kitten", "sitting"));
    assertEquals(5, EditDistance.between("", "slurm"));
    assertEquals(5, EditDistance.between("slurm", ""));
  }
}
