// Human misspellings: words replaced by their common misspellings from Wikipedia's list (the
// `misspelling` source's default: SHARED_DATA/misspellings/wikipedia_common_misspellings.txt).
{ type: 'misspelling' }
