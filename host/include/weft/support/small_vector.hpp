// A vector that keeps its first N elements inside itself.
//
// A registered builtin has one or two parameters and one owner; std::vector
// gave each of those lists a heap block of its own, and those allocations
// were most of what registering a plugin builtin cost (bench/plugin_load).
// Past N elements the storage moves to the heap, like std::vector's.
//
// Only what the registry's records need: elements must move without throwing
// (std::string, weft::Type), so growing never leaves a half-moved list, and
// iterators are pointers, invalidated like std::vector's (and also by moving
// a SmallVector whose elements are inline).
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft {

template <class T, std::size_t N> class SmallVector {
    static_assert(N > 0, "SmallVector: an inline capacity of 0 is a std::vector");
    static_assert(std::is_nothrow_move_constructible_v<T>, "SmallVector: elements must move without throwing");

public:
    using value_type = T;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using reference = T &;
    using const_reference = const T &;
    using pointer = T *;
    using const_pointer = const T *;
    using iterator = T *;
    using const_iterator = const T *;

    SmallVector() noexcept = default;
    SmallVector(std::initializer_list<T> items) { append_copies(items.begin(), items.end()); }
    template <class It, class = typename std::iterator_traits<It>::iterator_category>
    SmallVector(It first, It last) {
        append_copies(first, last);
    }
    SmallVector(const SmallVector &other) { append_copies(other.begin(), other.end()); }
    SmallVector(SmallVector &&other) noexcept { take(std::move(other)); }
    ~SmallVector() { release(); }

    SmallVector &operator=(const SmallVector &other) {
        if (this != &other) {
            SmallVector copy(other); // may throw: *this is untouched
            *this = std::move(copy);
        }
        return *this;
    }
    SmallVector &operator=(SmallVector &&other) noexcept {
        if (this != &other) {
            release();
            take(std::move(other));
        }
        return *this;
    }
    SmallVector &operator=(std::initializer_list<T> items) { return *this = SmallVector(items); }

    void assign(size_type count, const T &value) {
        SmallVector filled;
        filled.reserve(count);
        for (size_type i = 0; i < count; ++i) filled.push_back(value);
        *this = std::move(filled);
    }

    size_type size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    size_type capacity() const noexcept { return capacity_; }
    /// True while the elements live inside the object (tests and benches).
    bool is_inline() const noexcept { return data_ == inline_data(); }

    T *data() noexcept { return data_; }
    const T *data() const noexcept { return data_; }
    iterator begin() noexcept { return data_; }
    iterator end() noexcept { return data_ + size_; }
    const_iterator begin() const noexcept { return data_; }
    const_iterator end() const noexcept { return data_ + size_; }
    T &operator[](size_type i) noexcept { return data_[i]; }
    const T &operator[](size_type i) const noexcept { return data_[i]; }
    T &at(size_type i) {
        if (i >= size_) throw std::out_of_range("SmallVector::at: index past the end");
        return data_[i];
    }
    const T &at(size_type i) const {
        if (i >= size_) throw std::out_of_range("SmallVector::at: index past the end");
        return data_[i];
    }
    T &front() noexcept { return data_[0]; }
    const T &front() const noexcept { return data_[0]; }
    T &back() noexcept { return data_[size_ - 1]; }
    const T &back() const noexcept { return data_[size_ - 1]; }

    void reserve(size_type wanted) {
        if (wanted > capacity_) move_to(allocate(wanted), wanted);
    }

    template <class... Args> T &emplace_back(Args &&...args) {
        if (size_ < capacity_) {
            ::new (static_cast<void *>(data_ + size_)) T(std::forward<Args>(args)...);
            return data_[size_++];
        }
        // The new element is built first, in the new block: `args` may refer
        // to an element of this vector, which moving would empty.
        const size_type grown = capacity_ * 2;
        T *block = allocate(grown);
        try {
            ::new (static_cast<void *>(block + size_)) T(std::forward<Args>(args)...);
        } catch (...) {
            std::allocator<T>().deallocate(block, grown);
            throw;
        }
        move_to(block, grown);
        return data_[size_++];
    }
    void push_back(const T &value) { emplace_back(value); }
    void push_back(T &&value) { emplace_back(std::move(value)); }
    void pop_back() noexcept { data_[--size_].~T(); }

    void clear() noexcept {
        std::destroy(data_, data_ + size_);
        size_ = 0;
    }

    friend bool operator==(const SmallVector &a, const SmallVector &b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
    friend bool operator!=(const SmallVector &a, const SmallVector &b) { return !(a == b); }
    /// The same elements in the same order as a std::vector.
    friend bool operator==(const SmallVector &a, const std::vector<T> &b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
    friend bool operator!=(const SmallVector &a, const std::vector<T> &b) { return !(a == b); }

private:
    T *inline_data() noexcept { return std::launder(reinterpret_cast<T *>(inline_)); }
    const T *inline_data() const noexcept { return std::launder(reinterpret_cast<const T *>(inline_)); }

    static T *allocate(size_type n) { return std::allocator<T>().allocate(n); }

    /// Moves the elements into `block` (of `capacity` elements) and makes it the storage.
    void move_to(T *block, size_type capacity) noexcept {
        std::uninitialized_move(data_, data_ + size_, block);
        std::destroy(data_, data_ + size_);
        if (!is_inline()) std::allocator<T>().deallocate(data_, capacity_);
        data_ = block;
        capacity_ = capacity;
    }

    /// Constructors only: a throw frees what was built, since no destructor will.
    template <class It> void append_copies(It first, It last) {
        try {
            if constexpr (std::is_base_of_v<std::forward_iterator_tag,
                                            typename std::iterator_traits<It>::iterator_category>)
                reserve(static_cast<size_type>(std::distance(first, last)));
            for (; first != last; ++first) emplace_back(*first);
        } catch (...) {
            release();
            throw;
        }
    }

    /// Destroys the elements and frees a heap block; leaves an empty inline vector.
    void release() noexcept {
        clear();
        if (!is_inline()) std::allocator<T>().deallocate(data_, capacity_);
        data_ = inline_data();
        capacity_ = N;
    }

    /// Takes other's elements (*this is empty and inline); other is left empty.
    void take(SmallVector &&other) noexcept {
        if (other.is_inline()) {
            std::uninitialized_move(other.begin(), other.end(), data_);
            size_ = other.size_;
            other.clear();
            return;
        }
        data_ = other.data_;
        size_ = other.size_;
        capacity_ = other.capacity_;
        other.data_ = other.inline_data();
        other.size_ = 0;
        other.capacity_ = N;
    }

    alignas(T) unsigned char inline_[N * sizeof(T)];
    T *data_ = inline_data();
    size_type size_ = 0;
    size_type capacity_ = N;
};

} // namespace weft
