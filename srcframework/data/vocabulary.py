from typing import Dict, Iterable, Optional, Union

from allennlp.data import DatasetReader, Vocabulary
from allennlp.data.vocabulary import DEFAULT_NON_PADDED_NAMESPACES


class ReaderVocabulary(Vocabulary):
    """
    A vocabulary built from the instances that its own `reader` reads from `data_path`, not from
    the training and validation data that AllenNLP would read with the config's readers. Give it a
    clean reader of the clean training split, and a noise-trained model and its clean twin get the
    same vocabulary: no noisy training token, and no validation or test word, enters either.

    Registered as the `Vocabulary` type `"from_reader"`:

        vocabulary: { type: 'from_reader', reader: { type: 'squad_v1', articles: 'train', ... },
                      data_path: '../shared/data/squad/dev-v1.1.json' }

    # Parameters

    reader : `DatasetReader`
        Reads `data_path`; give it no noise.
    data_path : `str`
    min_count : `Dict[str, int]`, optional
    max_vocab_size : `Union[int, Dict[str, int]]`, optional
    non_padded_namespaces : `Iterable[str]`, optional (default = AllenNLP's)
    """

    @classmethod
    def from_reader(
        cls,
        reader: DatasetReader,
        data_path: str,
        min_count: Optional[Dict[str, int]] = None,
        max_vocab_size: Optional[Union[int, Dict[str, int]]] = None,
        non_padded_namespaces: Iterable[str] = DEFAULT_NON_PADDED_NAMESPACES,
    ) -> Vocabulary:
        return Vocabulary.from_instances(
            reader.read(data_path),
            min_count=min_count,
            max_vocab_size=max_vocab_size,
            non_padded_namespaces=non_padded_namespaces,
        )


Vocabulary.register("from_reader", constructor="from_reader")(ReaderVocabulary)
