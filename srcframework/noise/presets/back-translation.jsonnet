// Machine-translation noise: each question translated by apertium into Spanish and back.
{
  type: 'back_translation',
  forward: { type: 'apertium', pair: 'eng-spa' },
  backward: { type: 'apertium', pair: 'spa-eng' },
}
