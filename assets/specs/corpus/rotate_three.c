/*@ requires \valid(a + (0 .. 2));
    assigns a[0 .. 2];
    ensures a[0] == \old(a[1]);
    ensures a[1] == \old(a[2]);
    ensures a[2] == \old(a[0]);
*/
void rotate_three(int *a) {
  int first = a[0];
  a[0] = a[1];
  a[1] = a[2];
  a[2] = first;
}
