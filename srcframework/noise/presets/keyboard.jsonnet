// Keyboard typos as in NoiseQA's keyboard set: each word gets, with probability 0.25 (the
// `keyboard` source's default), one letter replaced by its left or right QWERTY neighbour.
{ type: 'keyboard' }
