# Prints the completions zsh offers for a command line, one a line ("word -- description"
# when there is one). Usage: zsh -f zsh-capture.zsh DIR 'cpctl deploy cr'
# DIR holds the _cpctl under test; it goes first in $fpath.
#
# How: an interactive zsh runs in a pseudo-terminal (zsh/zpty) with compinit; compadd is
# wrapped to print each match instead of inserting it; the line is typed followed by TAB.
# The technique is the one of zsh-capture-completion (github.com/Valodim/zsh-capture-completion).
# The caller bounds the run with a timeout.
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
setopt rcquotes
local line

() {
  zpty -w z source $1
  repeat 8; do
    zpty -r z line
    [[ $line == ok* ]] && return
  done
  echo 'zsh-capture: the shell did not start' >&2
  exit 2
} =( <<< '
PROMPT=
fpath=('$1' $fpath)
autoload -U compinit
compinit -u -D
zstyle ":completion:*" list-grouped false
zstyle ":completion:*" insert-tab false
zstyle ":completion:*" list-separator ""
zmodload zsh/zutil
compadd () {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
    builtin compadd "$@"
    return $?
  fi
  typeset -a __hits __dscr __tmp
  if (( $@[(I)-d] )); then
    __tmp=${@[$[${@[(i)-d]}+1]]}
    if [[ $__tmp == \(* ]]; then
      eval "__dscr=$__tmp"
    else
      __dscr=( "${(@P)__tmp}" )
    fi
  fi
  builtin compadd -A __hits -D __dscr "$@"
  setopt localoptions norcexpandparam extendedglob
  typeset -A apre hpre hsuf asuf
  zparseopts -E P:=apre p:=hpre S:=asuf s:=hsuf
  [[ -n $__hits ]] || return
  local dscr
  for i in {1..$#__hits}; do
    (( $#__dscr >= $i )) && dscr=" -- ${${__dscr[$i]}##$__hits[$i] #}" || dscr=
    echo -E - $IPREFIX$apre$hpre$__hits[$i]$hsuf$asuf$dscr
  done
}
bindkey "^I" complete-word
null-line () { echo -E - $'"'"'\0'"'"' }
compprefuncs=( null-line )
comppostfuncs=( null-line exit )
echo ok')

zpty -w z "$2"$'\t'
integer seen=0
while zpty -r z; do :; done | while IFS= read -r line; do
  # The matches come between two NUL lines (before and after completion).
  if [[ $line == *$'\0\r' ]]; then
    (( seen++ )) && return 0 || continue
  fi
  (( seen )) && echo -E - ${line%$'\r'}
done
return 2
