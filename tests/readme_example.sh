# Sourced by the tests of the README's examples (readme_plugin.sh,
# readme_python.sh), which are run as `SCRIPT SOURCE_ROOT KHOST`: sets src and
# exe, makes a scratch folder work (removed on exit), and defines
# readme_example.
src=$1 exe=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# readme_example FIRST LAST FILE: the README's lines from the one matching the
# awk pattern FIRST to the one matching LAST into FILE; fails when FIRST is not
# there.
readme_example() {
  awk "/$1/,/$2/" "$src/README.md" >"$3"
  [ -s "$3" ] || { echo "example /$1/ not found in README.md"; exit 1; }
}
