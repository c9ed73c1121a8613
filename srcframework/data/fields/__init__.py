from srcframework.data.fields.audio_field import AudioField, padding_fraction
