/*@ requires -10000 <= celsius <= 10000;
    assigns \nothing;
    ensures \result == celsius * 9 / 5 + 32;
*/
int celsius_to_fahrenheit(int celsius) {
  int scaled = celsius * 9;
  return scaled / 5 + 32;
}
