/*@ requires 1 <= n <= 1000;
    requires \valid_read(a + (0 .. n-1));
    requires \forall integer k; 0 <= k < n ==> -100000 <= a[k] <= 100000;
    assigns \nothing;
    ensures \result == a[0] + a[n-1];
*/
int first_plus_last(const int *a, int n) {
  int first = a[0];
  int last = a[n - 1];
  return first + last;
}
