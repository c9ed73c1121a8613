// Spoken questions for testing: read by flite rms, a voice that asr-fast-3voices does not use, and
// recognised by pocketsphinx with its default search. The robust-training recipe's spoken test set.
{
  type: 'asr',
  synthesizer: { type: 'flite', voice: 'rms' },
  recognizer: { type: 'pocketsphinx' },
}
