/* The one rule for a whole number that a user writes: in a flag's value
 * (--device, --devices, --shard, --threads, --graph, --min-samples, --trials) or
 * in a Slurm job array's variables. */
#ifndef KHOST_WHOLE_NUMBER_H
#define KHOST_WHOLE_NUMBER_H

/* s as a whole number from lo to hi: decimal digits only, all of s, so no sign,
 * blank or other base ("+1", "-1", " 1" and "0x1" are refused; "08" is 8). 1 with
 * *out set; 0 with *out untouched when s is empty, holds any other character, or
 * its value is outside lo..hi (one too large for a long included). */
int khost__whole_number(const char *s, long lo, long hi, long *out);

#endif
